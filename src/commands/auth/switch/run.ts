// rfs auth switch [<name>]: make a saved profile the default; without a name, a picker of the
// saved profiles on a terminal (cli.md, auth).
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../../core/errors.js';
import { redactKey } from '../../../core/redact.js';
import { sanitize } from '../../../core/sanitize.js';
import type { Input } from './index.js';
import { checkProfileName, openProfiles } from '../../../config/profiles.js';
import { pick } from '../../../prompt/pick.js';
import { displayWidth, pad } from '../../../output/table.js';

export function options({ args: [name] }: Input): { name: string | undefined } {
  return { name: name === undefined ? undefined : checkProfileName(name) };
}

export async function run(ctx: Context, o: { name: string | undefined }): Promise<number> {
  const store = openProfiles(ctx.io.env, { clock: ctx.clock, cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) });
  let name = o.name;
  if (name === undefined) {
    const profiles = store.list();
    if (profiles.length === 0) throw new UsageError('no profiles are saved yet', { hint: 'save one with `rfs auth login`' });
    // Aligned columns: name, base URL, redacted key, measured in terminal cells (a name may be wide).
    const rows = profiles.map(
      (p) => [sanitize(p.name), sanitize(p.baseUrl), redactKey(p.apiKey), p.isDefault ? '(default now)' : ''] as const,
    );
    const width = (i: 0 | 1) => Math.max(...rows.map((r) => displayWidth(r[i])));
    name = await pick(
      ctx,
      'Default profile',
      profiles.map((p, i) => {
        const [n, url, key, mark] = rows[i] ?? ['', '', '', ''];
        return { value: p.name, name: `${pad(n, width(0))}  ${pad(url, width(1))}  ${key}${mark ? `  ${mark}` : ''}` };
      }),
      {
        initial: store.defaultName(),
        instead: `name the profile: rfs auth switch <name> (saved: ${profiles.map((p) => sanitize(p.name)).join(', ')})`,
      },
    );
  }
  await store.setDefault(name);
  ctx.ui.notice(`Default profile is now "${name}".`);
  return EXIT.OK;
}
