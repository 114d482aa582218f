// rfs auth status (cli.md, auth): every profile (or one) with its redacted key and the live
// answer for it; exit 3 when the selected profile fails.
import { redactKey } from '../../../core/redact.js';
import type { Context } from '../../context.js';
import { AuthError, EXIT } from '../../../core/errors.js';
import { environmentKey } from '../../../config/environment-key.js';
import { baseUrlSetting, resolveConnection, savedBaseUrl, selectProfile, usableBaseUrl } from '../../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../../config/profiles.js';
import { writeList } from '../../../output/list-writer.js';
import { wrapText } from '../../../output/wrap.js';
import { checkingKey, checkKey, type KeyState, type ProvableScope } from '../check.js';

interface StatusRow {
  profile: string;
  /** The profile used when neither --profile nor RFS_PROFILE names one (`rfs auth switch`). */
  default: boolean;
  /** The key this run's commands would send. */
  selected: boolean;
  baseUrl: string;
  key: string;
  /** Where the key comes from: the profile's saved key, or RFS_API_KEY, which overrides it. */
  source: 'profile' | 'environment';
  scopes: ProvableScope[];
  status: KeyState | 'invalid key' | 'invalid base-url';
}

/** Nothing but the global --profile and --base-url. */
export function options(): undefined {
  return undefined;
}

export async function run(ctx: Context): Promise<number> {
  const { io, globals } = ctx;
  const store = openProfiles(io.env, { clock: ctx.clock, cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) });
  // One rule for "which rows": a profile named by --profile or RFS_PROFILE (the same choice,
  // cli.md's precedence) shows its row alone; otherwise every profile.
  const choice = selectProfile(globals, io.env, store);
  const selected = choice.name;
  const named = choice.named ? choice.name : undefined;
  const profiles = store.list().filter((p) => named === undefined || p.name === named);
  const envKey = environmentKey(io.env)?.key.trim();
  if (named !== undefined && profiles.length === 0 && envKey === undefined) {
    throw noSuchProfile(
      named,
      store.list().map((p) => p.name),
    );
  }
  if (profiles.length === 0 && envKey === undefined) {
    throw new AuthError('no API key configured: run `rfs auth login` to save one, or set RFS_API_KEY');
  }

  const rows: StatusRow[] = [];
  const check = async (connection: { profile: string; baseUrl: string; apiKey: string }): Promise<Pick<StatusRow, 'status' | 'scopes'>> => {
    try {
      const client = await ctx.connect(connection, { check: true });
      const { state, scopes } = await checkingKey(ctx, connection.baseUrl, () => checkKey(client, ctx.signal, { allScopes: true }));
      return { status: state, scopes };
    } catch (error) {
      if (error instanceof Error && error.name === 'UsageError') return { status: 'invalid key', scopes: [] };
      throw error;
    }
  };
  if (envKey !== undefined) {
    // RFS_API_KEY overrides every profile's key: show it first, as the one in use. It is not a
    // saved profile, so it is never the default: the profile's own row says that.
    const connection = resolveConnection(globals, io.env, store);
    rows.push({
      profile: connection.profile,
      default: false,
      selected: true,
      baseUrl: connection.baseUrl,
      key: redactKey(envKey),
      source: 'environment',
      ...(await check(connection)),
    });
  }
  // The profile in use connects as every command would (flag, environment, then its own base URL,
  // by the settings rule; a bad stored one refused with exit 2), checked before any key is.
  const inUseUrl =
    envKey === undefined && profiles.some((p) => p.name === selected)
      ? usableBaseUrl(baseUrlSetting(globals, io.env, { name: selected, stored: store.settings(selected) }))
      : undefined;
  for (const p of profiles) {
    const isSelected = envKey === undefined && p.name === selected;
    // Another profile's own base URL: a bad one is that row's problem, said in the rule's words.
    const saved = isSelected ? undefined : savedBaseUrl({ name: p.name, stored: store.settings(p.name) });
    if (saved?.refused) ctx.ui.warn(saved.problem as string);
    const baseUrl = saved === undefined ? (inUseUrl as string) : String(saved.value);
    rows.push({
      profile: p.name,
      default: p.isDefault,
      selected: isSelected,
      baseUrl,
      key: redactKey(p.apiKey),
      source: 'profile',
      ...(saved?.refused ? { status: 'invalid base-url', scopes: [] } : await check({ profile: p.name, baseUrl, apiKey: p.apiKey })),
    });
  }

  await writeList(io, globals.output, rows, {
    color: globals.color,
    // The base URL is never cut (a cut URL is no URL, and the port is what tells sandboxes
    // apart); on a narrow terminal SCOPES goes first, then KEY.
    columns: [
      // The key of RFS_API_KEY is not a profile's: its row is named after the variable, so that
      // it is never a second `default` beside the saved profile of that name.
      { header: 'PROFILE', value: (r) => (r.source === 'environment' ? 'RFS_API_KEY' : r.profile) },
      { header: 'DEFAULT', value: (r) => (r.default ? 'yes' : '') },
      { header: 'IN USE', value: (r) => (r.selected ? 'yes' : '') },
      { header: 'BASE URL', value: (r) => r.baseUrl },
      { header: 'KEY', value: (r) => r.key, dropOrder: 2 },
      { header: 'SCOPES', value: (r) => (r.scopes.length > 0 ? r.scopes.join(',') : '-'), dropOrder: 1 },
      { header: 'STATUS', value: (r) => r.status },
    ],
  });
  // Wrapped at words on a terminal: a line cut mid-word by the terminal is hard to read.
  if (globals.output === 'table') ctx.ui.notice(io.stderrIsTTY ? wrapText(legend(rows), io.columns, '').join('\n') : legend(rows));
  const chosen = rows.find((r) => r.selected);
  if (chosen === undefined) {
    ctx.ui.notice(`the selected profile "${selected}" is not saved`);
    return EXIT.AUTH;
  }
  return chosen.status === 'ok' ? EXIT.OK : chosen.status === 'unreachable' ? EXIT.TRANSIENT : EXIT.AUTH;
}

/** What DEFAULT and IN USE mean, said once under the table (stderr, so scripts never see it). */
function legend(rows: StatusRow[]): string {
  const env = rows.some((r) => r.source === 'environment');
  return [
    'DEFAULT: the profile used when neither --profile nor RFS_PROFILE names one (change it with `rfs auth switch`).',
    `IN USE: the key that commands send now${env ? '; RFS_API_KEY overrides every saved key' : ''}.`,
  ].join('\n');
}
