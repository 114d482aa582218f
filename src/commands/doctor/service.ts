// The checks of rfs doctor that ask the service, with GETs only (nothing is changed): the
// round trip, the key, its scopes as far as a GET can tell them, the subscription, the clock
// (from the answer's Date header), and FAILED deliveries waiting. Every request goes through a
// connection-check client: one attempt, 10 s (cli.md, auth).
import { checkSubscriptions, type SubscriptionCheck, subscriptionOf } from '../../api/subscriptions.js';
import { hiddenSubscriptionsNotice, takeCensus } from '../../api/delivery-evidence.js';
import { joinWords } from '../../core/words.js';
import { RememberedSubscriptions } from '../../config/remembered-subscriptions.js';
import type { Connection } from '../../core/context.js';
import type { ApiClient, ApiResponse } from '../../api/types.js';
import { ApiError, EXIT, exitCodeFor } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';
import type { Context } from '../context.js';
import type { Report } from './report.js';

/** cli.md, doctor: webhook signatures allow 300 s, so a clock off by more than 30 s is worth a warning. */
const CLOCK_WARN_SECONDS = 30;

type Probe = { ok: true; response: ApiResponse<unknown>; ms: number } | { ok: false; error: unknown; ms: number };

async function probe(ctx: Context, client: ApiClient, path: string): Promise<Probe> {
  const started = ctx.clock.now();
  try {
    const response = await client.request({ method: 'GET', path, query: { limit: 1 }, schema: null, signal: ctx.signal });
    return { ok: true, response, ms: ctx.clock.now() - started };
  } catch (error) {
    return { ok: false, error, ms: ctx.clock.now() - started };
  }
}

function code(p: Probe): string | undefined {
  return !p.ok && p.error instanceof ApiError ? p.error.code : undefined;
}

/** An answer from the service (even a refusal), as opposed to no answer or a broken one. */
function answered(p: Probe): boolean {
  return p.ok || (p.error instanceof ApiError && p.error.exitCode !== EXIT.TRANSIENT);
}

function problemText(error: unknown): string {
  if (error instanceof ApiError) return `${sanitize(error.title)} (${sanitize(error.code)}, HTTP ${error.status})`;
  return sanitize(error instanceof Error ? error.message : String(error));
}

export async function checkService(ctx: Context, client: ApiClient, report: Report, connection: Connection): Promise<void> {
  const recordings = await probe(ctx, client, '/recordings');
  if (!answered(recordings)) {
    const error = recordings.ok ? undefined : recordings.error;
    report.fail('round-trip', `GET /recordings: ${problemText(error)}`, exitCodeFor(error));
    for (const check of ['key', 'scopes', 'subscription', 'clock', 'failed-deliveries']) report.skip(check, 'the service did not answer');
    return;
  }
  const status = recordings.ok ? recordings.response.status : (recordings.error as ApiError).status;
  report.ok('round-trip', `${Math.round(recordings.ms)} ms (GET /recordings, HTTP ${status})`);

  if (!recordings.ok && (recordings.error as ApiError).status === 401) {
    report.fail('key', `refused: ${problemText(recordings.error)}`, EXIT.AUTH);
    for (const check of ['scopes', 'subscription', 'clock', 'failed-deliveries']) report.skip(check, 'the key was refused');
    return;
  }
  const webhooks = await probe(ctx, client, '/webhooks');

  const probes: [string, string, Probe][] = [
    ['read:recordings', 'GET /recordings', recordings],
    ['manage:webhooks', 'GET /webhooks', webhooks],
  ];
  const broken = probes.find(([, , p]) => !p.ok && code(p) !== 'INSUFFICIENT_SCOPE' && code(p) !== 'SUBSCRIPTION_REQUIRED');
  if (broken) {
    const [, what, p] = broken;
    report.fail('key', `${what}: ${problemText(p.ok ? undefined : p.error)}`, exitCodeFor(p.ok ? undefined : p.error));
  } else {
    report.ok('key', 'accepted by the service');
  }

  const has = (p: Probe) => (p.ok ? 'yes' : code(p) === 'INSUFFICIENT_SCOPE' ? 'no' : 'unknown');
  const scopes = probes.map(([scope, , p]) => `${scope} ${has(p)}`).join(', ');
  const detail = `${scopes}; write:recordings not checked (only a filing would tell)`;
  if (probes.some(([, , p]) => p.ok)) report.ok('scopes', detail);
  else report.warn('scopes', detail);

  const unsubscribed = probes.find(([, , p]) => code(p) === 'SUBSCRIPTION_REQUIRED');
  if (unsubscribed)
    report.fail(
      'subscription',
      `the workspace has no subscription: ${problemText(unsubscribed[2].ok ? undefined : unsubscribed[2].error)}`,
      EXIT.AUTH,
    );
  else if (probes.some(([, , p]) => p.ok)) report.ok('subscription', 'active');
  else report.skip('subscription', 'no request was allowed to tell');

  checkClock(
    ctx,
    probes.map(([, , p]) => p),
    report,
  );

  if (!webhooks.ok) {
    report.skip('failed-deliveries', 'needs the manage:webhooks scope');
    return;
  }
  try {
    await checkFailedDeliveries(ctx, client, report, connection);
  } catch (error) {
    report.fail('failed-deliveries', `GET /webhooks/deliveries: ${problemText(error)}`, exitCodeFor(error));
  }
}

/**
 * FAILED deliveries waiting, from evidence (api/delivery-evidence.ts): the census of the FAILED
 * lists, so that a full list of the whole workspace is listed again per known subscription (live,
 * and the deleted ones rfs remembers) and one busy or deleted subscription hides no other one's
 * deliveries (docs/incidents.md, "At incident scale"). Those of deleted subscriptions are counted
 * apart (the service never replays them). A count with a row from a full list is a lower bound,
 * and a full list of the whole workspace may hide subscriptions rfs has not seen: said so,
 * naming the command that reaches one (doctor has no --subscription).
 */
async function checkFailedDeliveries(ctx: Context, client: ApiClient, report: Report, connection: Connection): Promise<void> {
  // Read only: doctor changes nothing anywhere (cli.md, doctor); a remembered id the service refuses is only skipped.
  const memory = RememberedSubscriptions.open(ctx.io.env, { baseUrl: connection.baseUrl, profile: connection.profile }, () =>
    ctx.clock.now(),
  );
  // Which subscriptions exist is asked only when something names one.
  let check: Promise<SubscriptionCheck> | undefined;
  const exists = (): Promise<SubscriptionCheck> => {
    check ??= checkSubscriptions(client, ctx.signal);
    return check;
  };
  const census = await takeCensus(client, {
    statuses: ['FAILED'],
    known: async () => {
      const live = await exists();
      return [...live.byId.keys(), ...memory.all().map((s) => s.id)];
    },
    signal: ctx.signal,
  });
  const rows = new Map<string, { subscriptionId: string; full: boolean }>();
  for (const slice of census.slices) {
    for (const d of slice.deliveries) if (!rows.has(d.id)) rows.set(d.id, { subscriptionId: subscriptionOf(d), full: slice.full });
  }
  const live = [...rows.values()].some((r) => r.subscriptionId !== '') ? await exists() : undefined;
  const waiting = { count: 0, isLowerBound: false };
  const deleted = new Map<string, { subscriptionId: string; count: number; countIsLowerBound: boolean }>();
  for (const { subscriptionId, full } of rows.values()) {
    if (live?.isDeleted(subscriptionId) !== true) {
      waiting.count += 1;
      waiting.isLowerBound ||= full;
      continue;
    }
    const own = deleted.get(subscriptionId) ?? { subscriptionId, count: 0, countIsLowerBound: false };
    own.count += 1;
    own.countIsLowerBound ||= full;
    deleted.set(subscriptionId, own);
  }
  const ofDeleted = [...deleted.values()].sort((a, b) => (a.subscriptionId < b.subscriptionId ? -1 : 1));
  const hidden = census.workspaceFull.length > 0;
  const found = {
    waiting: waiting.count,
    waitingIsLowerBound: waiting.isLowerBound,
    ofDeletedSubscriptions: ofDeleted,
    othersMayBeHidden: hidden,
  };
  const counted = joinWords(
    ofDeleted.map((d) => `${d.count}${d.countIsLowerBound ? '+' : ''} of deleted subscription ${sanitize(d.subscriptionId)}`),
  );
  const hides = hidden ? `; ${hiddenSubscriptionsNotice(['FAILED'], 'rfs deliveries summary')}` : '';
  if (waiting.count === 0) {
    const apart = ofDeleted.length === 0 ? '' : `; FAILED too, but the service cannot replay them: ${counted}`;
    report.ok('failed-deliveries', `none waiting${apart}${hides}`, found);
  } else {
    const apart = ofDeleted.length === 0 ? '' : `; apart from those, ${counted} (the service cannot replay them)`;
    report.warn(
      'failed-deliveries',
      `${waiting.count}${waiting.isLowerBound ? ' or more' : ''} waiting (see rfs deliveries summary; rfs deliveries replay --all-failed)${apart}${hides}`,
      found,
    );
  }
}

function checkClock(ctx: Context, probes: Probe[], report: Report): void {
  const answer = probes.find((p): p is Extract<Probe, { ok: true }> => p.ok);
  const date = answer?.response.headers.date;
  const text = Array.isArray(date) ? date[0] : date;
  const server = text === undefined ? Number.NaN : Date.parse(text);
  if (Number.isNaN(server)) {
    report.skip('clock', answer ? 'the answer has no Date header' : 'no answer to read the time from');
    return;
  }
  // The Date header has whole seconds: an offset below a second is noise.
  const offset = Math.round((server - ctx.clock.now()) / 1000);
  const side = offset > 0 ? 'ahead of' : 'behind';
  const detail = offset === 0 ? 'in step with the server' : `the server's clock is ${Math.abs(offset)} s ${side} this one`;
  if (Math.abs(offset) > CLOCK_WARN_SECONDS) report.warn('clock', `${detail} (webhook signatures allow 300 s; check NTP)`);
  else report.ok('clock', detail);
}
