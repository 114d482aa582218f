// The subscriptions rfs remembers (config/remembered-subscriptions.ts), opened for the run's
// connection: every command that sees subscription ids (webhooks list and create, listen
// --subscribe, the deliveries commands) tells them here, so that the incident commands find a
// deleted subscription's deliveries behind a full list.
import { RememberedSubscriptions } from '../config/remembered-subscriptions.js';
import type { Context } from './context.js';

/** The memory of the run's base URL and profile. */
export async function openRemembered(ctx: Context): Promise<RememberedSubscriptions> {
  const { baseUrl, profile } = await ctx.connection();
  return RememberedSubscriptions.open(ctx.io.env, { baseUrl, profile }, () => ctx.clock.now());
}

/** Remembers subscriptions seen alive (`webhooks create`, `listen --subscribe`, a page of `webhooks list`). */
export async function rememberSubscriptions(ctx: Context, seen: Iterable<{ id: string; url?: unknown }>): Promise<void> {
  const memory = await openRemembered(ctx);
  memory.saw(seen);
  await saveRemembered(ctx, memory);
}

/** Writes the memory; a failure is a verbose line, never the command's failure. */
export async function saveRemembered(ctx: Context, memory: RememberedSubscriptions): Promise<void> {
  if (!(await memory.save())) ctx.ui.verbose('could not write the remembered subscriptions (state folder): going on without');
}
