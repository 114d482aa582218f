// The subscriptions the incident commands list deliveries of (cli.md, deliveries, "Deleted
// subscriptions"): those GET /webhooks lists now, and those rfs remembers (commands/remembered.ts)
// that it no longer lists — deleted, but their FAILED deliveries are still listed by their id.
// One listing of GET /webhooks per run (or per poll of `deliveries watch`), told to the memory.
import { checkSubscriptions, type SubscriptionCheck } from '../../api/subscriptions.js';
import type { ApiClient } from '../../api/types.js';
import type { RememberedSubscriptions } from '../../config/remembered-subscriptions.js';
import type { Context } from '../context.js';
import { openRemembered, saveRemembered } from '../remembered.js';
import { sanitize } from '../../core/sanitize.js';
import { field } from '../../output/fields.js';
import type { Slice } from './census.js';

export interface KnownSubscriptions extends SubscriptionCheck {
  /** Live ids, then the remembered ones GET /webhooks no longer lists (deleted). */
  readonly ids: readonly string[];
  /** Remembered ids that GET /webhooks no longer lists. */
  readonly deleted: readonly string[];
  /** The URL: as listed, or as remembered for a deleted one; null when unknown. */
  urlOf(subscriptionId: string): string | null;
  /**
   * Learns from a census (`takeCensus`): the subscription ids its rows name are remembered, and a
   * deleted one that has no FAILED and no PENDING delivery left is forgotten (nothing of it can
   * ever show again). Then writes the memory.
   */
  learn(slices: readonly Slice[], refused?: readonly { id: string; why: string }[]): Promise<void>;
}

/** Which statuses a deleted subscription must have none of, to be forgotten. */
const OPEN_STATUSES = ['FAILED', 'PENDING'];

/** Lists GET /webhooks (every page) and joins it with the memory of this connection. */
export async function knowSubscriptions(ctx: Context, client: ApiClient): Promise<KnownSubscriptions> {
  const live = await checkSubscriptions(client, ctx.signal);
  const memory = await openRemembered(ctx);
  memory.sawAllLive([...live.byId.values()].map((s) => ({ id: String(s.id), url: s.url })));
  return joined(ctx, live, memory);
}

function joined(ctx: Context, live: SubscriptionCheck, memory: RememberedSubscriptions): KnownSubscriptions {
  const deleted = memory
    .all()
    .map((s) => s.id)
    .filter((id) => !live.byId.has(id));
  return {
    byId: live.byId,
    isDeleted: live.isDeleted,
    ids: [...live.byId.keys(), ...deleted],
    deleted,
    urlOf: (id) => {
      const url = live.byId.get(id)?.url;
      return typeof url === 'string' ? url : memory.url(id);
    },
    learn: async (slices, refused = []) => {
      memory.sawIds(slices.flatMap((s) => s.deliveries.map((d) => field(d, 'subscriptionId'))));
      memory.forget(deleted.filter((id) => OPEN_STATUSES.every((status) => noneLeft(slices, status, id))));
      // An id the service refuses can never list anything: forgotten, and said once.
      const forgotten = refused.filter((r) => memory.get(r.id) !== undefined);
      memory.forget(forgotten.map((r) => r.id));
      for (const r of forgotten) {
        ctx.ui.notice(
          `forgot remembered subscription ${sanitize(JSON.stringify(r.id))}: the service refused its deliveries list (${sanitize(r.why)})`,
        );
      }
      await saveRemembered(ctx, memory);
    },
  };
}

/** True when the census shows that `subscriptionId` has no delivery of `status`. */
function noneLeft(slices: readonly Slice[], status: string, subscriptionId: string): boolean {
  const whole = slices.filter((s) => s.status === status && (s.listedFor === subscriptionId || (s.listedFor === undefined && !s.full)));
  return whole.length > 0 && whole.every((s) => !s.deliveries.some((d) => field(d, 'subscriptionId') === subscriptionId));
}
