// The environment of the command `rfs sync --exec` runs (docs/sync.md, "The command's
// environment"): an allow-list, not rfs's whole environment. rfs holds the API key (and, with
// --listen, the webhook secret) in its environment; a command that only creates an external
// record needs neither, and whatever it runs (a package's script, a log line of `env`) would
// otherwise see them. What a shell and its tools need to run is passed; anything else is named
// with --exec-env or RFS_EXEC_ENV.
import { UsageError } from '../core/errors.js';
import { sanitize } from '../core/sanitize.js';

/**
 * Passed to every command: what a shell, an interpreter and an HTTP client read to run as they
 * would from the user's shell (the locale, the temporary folder, proxies and CA files), and on
 * Windows what a process needs to start at all.
 */
export const DEFAULT_EXEC_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'PWD',
  'TMPDIR',
  'TZ',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

/**
 * Secrets rfs itself reads: passed only when --exec-env names them exactly, never through a
 * pattern (`--exec-env 'RFS_*'` does not hand the command the key).
 */
const SECRETS = new Set(['RFS_API_KEY', 'RFS_API_KEY_FILE', 'RFS_WEBHOOK_SECRET']);

/** A variable's name, or a prefix ending in `*`. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/**
 * The names passed beside the default list: RFS_EXEC_ENV's (separated by commas or spaces, for a
 * deployment that configures rfs by its environment), then --exec-env's. Exit 2 for one that
 * names no variable.
 */
export function execEnvNames(flag: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const fromEnv = (env.RFS_EXEC_ENV ?? '').split(/[\s,]+/).filter(Boolean);
  for (const [source, names] of [
    ['RFS_EXEC_ENV', fromEnv],
    ['--exec-env', flag],
  ] as const) {
    for (const name of names) {
      if (!NAME.test(name)) {
        throw new UsageError(
          `${source} "${sanitize(name)}" is not a variable's name: use NAME, or PREFIX* for every variable starting with PREFIX`,
        );
      }
    }
  }
  return [...fromEnv, ...flag];
}

/**
 * The command's environment: the variables of `env` that DEFAULT_EXEC_ENV or `extra` name (a
 * trailing `*` matches a prefix), then `own` (RFS_RECORDING_ID, RFS_ATTEMPT), which rfs sets.
 * `secrets` are further variables (--secret-env's) that only an exact name passes.
 */
export function execEnvironment(
  env: NodeJS.ProcessEnv,
  extra: readonly string[],
  own: Record<string, string>,
  secrets: readonly string[] = [],
): NodeJS.ProcessEnv {
  const allowed = [...DEFAULT_EXEC_ENV, ...extra];
  const exact = new Set(allowed.filter((n) => !n.endsWith('*')));
  const prefixes = allowed.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1));
  const secret = (name: string): boolean => SECRETS.has(name) || secrets.includes(name);
  const out: NodeJS.ProcessEnv = {};
  for (const [given, value] of Object.entries(env)) {
    if (value === undefined) continue;
    // Windows spells the same variable Path or PATH.
    const name = process.platform === 'win32' ? given.toUpperCase() : given;
    if (exact.has(name) || (!secret(name) && prefixes.some((p) => name.startsWith(p)))) out[given] = value;
  }
  return { ...out, ...own };
}
