// rfs auth logout [--profile <name>]: forget a profile and its key. It asks first (cli.md,
// auth); without a terminal to ask on, --yes answers (exit 2 without it, as every prompt).
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { redactKey } from '../../../core/redact.js';
import { DEFAULT_PROFILE, selectProfile } from '../../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../../config/profiles.js';
import { sanitize } from '../../../core/sanitize.js';
import { confirmAction } from '../../../prompt/confirm.js';

/** Nothing but the global --profile. */
export function options(): undefined {
  return undefined;
}

export async function run(ctx: Context): Promise<number> {
  const store = openProfiles(ctx.io.env, { clock: ctx.clock, cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) });
  const { name } = selectProfile(ctx.globals, ctx.io.env, store);
  const names = () => store.list().map((p) => p.name);
  const profile = store.get(name);
  if (profile === undefined) throw noSuchProfile(name, names());
  const isDefault = store.defaultName() === name;
  const question = `Remove the${isDefault ? ' default' : ''} profile "${name}" and its key ${redactKey(profile.apiKey)}?`;
  if (!(await confirmAction(ctx, question))) {
    ctx.io.stderr.write('Nothing removed.\n');
    return EXIT.OK;
  }
  if (!(await store.remove(name))) throw noSuchProfile(name, names());
  ctx.ui.notice(`Removed profile "${sanitize(name)}" and its key from ${store.path}.`);
  if (isDefault) {
    const next = afterDefaultRemoved(store.defaultName(), names());
    if (next !== undefined) ctx.ui.notice(next);
  }
  return EXIT.OK;
}

/**
 * What the next command uses once the default profile is gone (cli.md, Connection: the profile
 * marked default, else `default`), said rather than left for the next command to surprise: the
 * one profile left, marked default by the store; the profile named `default`, which rfs falls
 * back to; or none, with how to choose.
 */
function afterDefaultRemoved(marked: string | undefined, left: readonly string[]): string | undefined {
  if (left.length === 0) return undefined;
  if (marked !== undefined) return `"${sanitize(marked)}" is now the default profile (the only one left).`;
  const choose = 'rfs auth switch <name> makes another the default';
  if (left.includes(DEFAULT_PROFILE))
    return `No profile is marked default now: rfs uses the profile named "${DEFAULT_PROFILE}"; ${choose}.`;
  return `No profile is the default now: name one with -p, or run rfs auth switch <name> (saved: ${left.map((n) => sanitize(n)).join(', ')}).`;
}
