// rfs auth switch <name>: make a saved profile the default.
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import type { Input } from './index.js';
import { checkProfileName, openProfiles } from '../../../config/profiles.js';

export function options({ args: [name] }: Input): { name: string } {
  return { name: checkProfileName(name) };
}

export async function run(ctx: Context, { name }: { name: string }): Promise<number> {
  await openProfiles(ctx.io.env, { clock: ctx.clock }).setDefault(name);
  ctx.ui.notice(`Default profile is now "${name}".`);
  return EXIT.OK;
}
