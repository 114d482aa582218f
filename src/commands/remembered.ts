// The subscriptions rfs remembers (config/remembered-subscriptions.ts), opened for the run's
// connection: every command that sees subscription ids (webhooks list and create, listen
// --subscribe, the deliveries commands) tells them here, so that the incident commands find a
// deleted subscription's deliveries behind a full list.
import { RememberedSubscriptions } from '../config/remembered-subscriptions.js';
import type { Context } from './context.js';

/** The memory of the run's base URL and profile. */
export async function openRemembered(ctx: Context): Promise<RememberedSubscriptions> {
  const { baseUrl, profile } = await ctx.connection();
  const memory = RememberedSubscriptions.open(ctx.io.env, { baseUrl, profile }, () => ctx.clock.now());
  tellProblems(ctx, memory);
  return memory;
}

/** What was said of the file, per run: watch opens the memory at every poll, and says each once. */
const told = new WeakMap<Context, Set<string>>();

/** The memory's problems (a file not the user's own, set aside, not saved): on stderr, each once a run, without -v. */
function tellProblems(ctx: Context, memory: RememberedSubscriptions): void {
  const said = told.get(ctx) ?? new Set<string>();
  told.set(ctx, said);
  for (const problem of memory.takeProblems()) {
    if (said.has(problem)) continue;
    said.add(problem);
    ctx.ui.warn(problem);
  }
}

/** Remembers subscriptions seen alive (`webhooks create`, `listen --subscribe`, a page of `webhooks list`). */
export async function rememberSubscriptions(ctx: Context, seen: Iterable<{ id: string; url?: unknown }>): Promise<void> {
  const memory = await openRemembered(ctx);
  memory.saw(seen);
  await saveRemembered(ctx, memory);
}

/** Writes the memory; a failure is a warning (what was not saved), never the command's failure. */
export async function saveRemembered(ctx: Context, memory: RememberedSubscriptions): Promise<void> {
  await memory.save();
  tellProblems(ctx, memory);
}
