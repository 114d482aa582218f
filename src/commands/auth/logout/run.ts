// rfs auth logout [--profile <name>]: forget a profile and its key. It asks first (cli.md,
// auth); without a terminal to ask on, --yes answers (exit 2 without it, as every prompt).
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { redactKey } from '../../../core/redact.js';
import { selectProfile } from '../../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../../config/profiles.js';
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
  ctx.ui.notice(`Removed profile "${name}" and its key from ${store.path}.`);
  return EXIT.OK;
}
