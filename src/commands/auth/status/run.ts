// rfs auth status (cli.md, auth): every profile (or one) with its redacted key and the live
// answer for it; exit 3 when the selected profile fails.
import { redactKey } from '../../../core/redact.js';
import type { Context } from '../../context.js';
import { AuthError, EXIT } from '../../../core/errors.js';
import { askedBaseUrl, envValue, resolveConnection, selectProfile } from '../../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../../config/profiles.js';
import { writeList } from '../../../output/list-writer.js';
import { checkKey, type KeyState } from '../check.js';

interface StatusRow {
  profile: string;
  default: boolean;
  selected: boolean;
  baseUrl: string;
  key: string;
  source: 'profile' | 'environment';
  status: KeyState | 'invalid key';
}

/** Nothing but the global --profile and --base-url. */
export function options(): undefined {
  return undefined;
}

export async function run(ctx: Context): Promise<number> {
  const { io, globals } = ctx;
  const store = openProfiles(io.env, { clock: ctx.clock });
  const selected = selectProfile(globals, io.env, store).name;
  const profiles = store.list().filter((p) => globals.profile === undefined || p.name === globals.profile);
  const envKey = envValue(io.env, 'RFS_API_KEY')?.trim();
  if (globals.profile !== undefined && profiles.length === 0 && envKey === undefined) {
    throw noSuchProfile(
      globals.profile,
      store.list().map((p) => p.name),
    );
  }
  if (profiles.length === 0 && envKey === undefined) {
    throw new AuthError('no API key configured: run `rfs auth login` to save one, or set RFS_API_KEY');
  }

  const rows: StatusRow[] = [];
  const check = async (connection: { profile: string; baseUrl: string; apiKey: string }): Promise<StatusRow['status']> => {
    try {
      return (await checkKey(await ctx.connect(connection), ctx.signal)).state;
    } catch (error) {
      if (error instanceof Error && error.name === 'UsageError') return 'invalid key';
      throw error;
    }
  };
  if (envKey !== undefined) {
    // RFS_API_KEY overrides every profile's key: show it first, as the one in use.
    const connection = resolveConnection(globals, io.env, store);
    rows.push({
      profile: connection.profile,
      default: store.defaultName() === connection.profile,
      selected: true,
      baseUrl: connection.baseUrl,
      key: redactKey(envKey),
      source: 'environment',
      status: await check(connection),
    });
  }
  for (const p of profiles) {
    const isSelected = envKey === undefined && p.name === selected;
    const baseUrl = isSelected ? (askedBaseUrl(globals, io.env) ?? p.baseUrl) : p.baseUrl;
    rows.push({
      profile: p.name,
      default: p.isDefault,
      selected: isSelected,
      baseUrl,
      key: redactKey(p.apiKey),
      source: 'profile',
      status: await check({ profile: p.name, baseUrl, apiKey: p.apiKey }),
    });
  }

  await writeList(io, globals.output, rows, {
    color: globals.color,
    width: io.columns,
    columns: [
      { header: 'PROFILE', value: (r) => `${r.selected ? '* ' : '  '}${r.profile}` },
      { header: 'DEFAULT', value: (r) => (r.default ? 'yes' : '') },
      { header: 'BASE URL', value: (r) => r.baseUrl, flex: true },
      { header: 'KEY', value: (r) => `${r.key}${r.source === 'environment' ? ' (RFS_API_KEY)' : ''}` },
      { header: 'STATUS', value: (r) => r.status },
    ],
  });
  const chosen = rows.find((r) => r.selected);
  if (chosen === undefined) {
    ctx.ui.notice(`the selected profile "${selected}" is not saved`);
    return EXIT.AUTH;
  }
  return chosen.status === 'ok' ? EXIT.OK : chosen.status === 'unreachable' ? EXIT.TRANSIENT : EXIT.AUTH;
}
