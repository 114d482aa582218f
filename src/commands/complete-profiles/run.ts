// The saved profile names (with a key or settings only), one a line, for the shell's completion:
// the names only (never a key or a URL), and nothing at all when the config cannot be read, so that a TAB never prints an
// error into the middle of a command line.
import type { Context } from '../context.js';
import { EXIT } from '../../core/errors.js';
import { openProfiles } from '../../config/profiles.js';

export async function run(ctx: Context): Promise<number> {
  let names: string[];
  try {
    // A profile with settings and no key too: `-p staging-eu` with RFS_API_KEY set is a real choice.
    names = openProfiles(ctx.io.env, { cache: ctx.configCache }).names();
  } catch {
    return EXIT.OK;
  }
  if (names.length > 0) ctx.io.stdout.write(`${names.join('\n')}\n`);
  return EXIT.OK;
}
