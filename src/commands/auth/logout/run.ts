// rfs auth logout [--profile <name>]: forget a profile and its key.
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { selectProfile } from '../../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../../config/profiles.js';

/** Nothing but the global --profile. */
export function options(): undefined {
  return undefined;
}

export async function run(ctx: Context): Promise<number> {
  const store = openProfiles(ctx.io.env, { clock: ctx.clock });
  const { name } = selectProfile(ctx.globals, ctx.io.env, store);
  if (!(await store.remove(name)))
    throw noSuchProfile(
      name,
      store.list().map((p) => p.name),
    );
  ctx.ui.notice(`Removed profile "${name}" and its key from ${store.path}.`);
  return EXIT.OK;
}
