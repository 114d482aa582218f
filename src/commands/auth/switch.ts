// rfs auth switch <name>: make a saved profile the default.
import type { Context } from '../context.js';
import { EXIT } from '../../core/errors.js';
import type { Invocation } from '../../cli/program.js';
import { checkProfileName, openProfiles } from '../../config/profiles.js';

export async function run(ctx: Context, inv: Invocation): Promise<number> {
  const name = checkProfileName(inv.args[0] ?? '');
  await openProfiles(ctx.io.env).setDefault(name);
  ctx.ui.notice(`Default profile is now "${name}".`);
  return EXIT.OK;
}
