// Which profile, service root and API key a command uses (cli.md, Connection and credentials):
// in every row the flag wins, then the environment, then the profile. The key has no flag,
// because argv leaks into shell history and `ps`.
import { AuthError, UsageError } from '../core/errors.js';
import type { Connection } from '../core/context.js';
import { checkKeyFormat } from './credentials.js';
import { environmentKey } from './environment-key.js';
import { sanitize } from '../core/sanitize.js';
import { noSuchProfile, type ProfileStore } from './profiles.js';
import {
  envValue,
  findSetting,
  type ProfileSettings,
  type ResolvedSetting,
  resolveSetting,
  settingDefault,
  storedSetting,
} from './settings.js';

export { DEFAULT_BASE_URL, envValue } from './settings.js';
export const DEFAULT_PROFILE = 'default';

/** The profile a command uses, and whether it was named (by flag or environment) rather than defaulted. */
export interface ProfileChoice {
  name: string;
  named: boolean;
  /** Which step of the rule chose it (rfs doctor says why). */
  from: 'flag' | 'environment' | 'marked default' | 'fallback';
}

/**
 * The one rule for which profile a command uses (cli.md, Connection and credentials):
 * `--profile`, then `RFS_PROFILE`, then the profile marked default, else `default`. The config
 * file is read only when neither names one.
 */
export function selectProfile(
  globals: { profile?: string | undefined },
  env: NodeJS.ProcessEnv,
  store: Pick<ProfileStore, 'defaultName'>,
): ProfileChoice {
  if (globals.profile !== undefined) return { name: globals.profile, named: true, from: 'flag' };
  const fromEnv = envValue(env, 'RFS_PROFILE');
  if (fromEnv !== undefined) return { name: fromEnv, named: true, from: 'environment' };
  const marked = store.defaultName();
  if (marked !== undefined) return { name: marked, named: false, from: 'marked default' };
  return { name: DEFAULT_PROFILE, named: false, from: 'fallback' };
}

/** The service root by the one settings rule (flag, environment, the profile's, the default), with where it came from. */
export function baseUrlSetting(
  globals: { baseUrl?: string | undefined },
  env: NodeJS.ProcessEnv,
  profile: ProfileSettings,
): ResolvedSetting {
  return resolveSetting(findSetting('base-url'), { flag: globals.baseUrl, env, ...storedOf(profile) });
}

/** The service root a profile itself names (its own, else the default): what no flag or variable of this run changes. */
export function savedBaseUrl(profile: ProfileSettings): ResolvedSetting {
  return storedSetting(findSetting('base-url'), storedOf(profile));
}

function storedOf(profile: ProfileSettings) {
  return { profile: profile.stored, profileName: profile.name, fallback: settingDefault('base-url', false) };
}

/**
 * The service root to send a key to: a bad one stored in the profile is refused (exit 2) in the
 * words `rfs config get` warns with, never passed over for another service.
 */
export function usableBaseUrl(base: ResolvedSetting): string {
  if (base.refused) throw new UsageError(base.problem as string);
  return String(base.value);
}

export function resolveConnection(
  globals: { profile?: string | undefined; baseUrl?: string | undefined },
  env: NodeJS.ProcessEnv,
  store: ProfileStore,
): Connection {
  const envKey = environmentKey(env)?.key;
  const { name, named } = selectProfile(globals, env, store);
  const profile = store.get(name);

  // A profile named on purpose that does not exist is a typo worth stopping for; with
  // RFS_API_KEY set the profile only names where a login would go, so it need not exist.
  const stored = store.settings(name);
  if (named && stored === undefined && envKey === undefined) {
    const saved = store.list().map((p) => p.name);
    throw noSuchProfile(name, saved, `save it with \`rfs auth login --profile ${sanitize(name)}\`, or set RFS_API_KEY`);
  }

  const rawKey = envKey ?? profile?.apiKey;
  if (rawKey === undefined) {
    const others = store.list().map((p) => p.name);
    throw new AuthError(
      `no API key configured${others.length || stored !== undefined ? ` for profile "${sanitize(name)}"` : ''}: run \`rfs auth login\` to save one, or set RFS_API_KEY`,
      others.length
        ? { hint: `saved profiles: ${others.map((n) => sanitize(n)).join(', ')}; choose one with \`rfs auth switch <name>\` or --profile` }
        : undefined,
    );
  }
  const apiKey = checkKeyFormat(rawKey);

  // The service root by the one settings rule, as `rfs config get base-url` shows it, whether or
  // not the profile holds the key; plain http to a remote host is refused there: nothing is sent.
  const baseUrl = usableBaseUrl(baseUrlSetting(globals, env, { name, stored }));
  return { profile: name, baseUrl, apiKey };
}
