// The selected profile's stored settings, read before the global options are resolved
// (cli/globals.ts) by the commands that use a profile or a setting. Only looks: nothing is
// tightened or written, so that `rfs doctor` still sees the modes as they are.
import { UsageError } from '../core/errors.js';
import { selectProfile } from './connection.js';
import { type ConfigCache, openProfiles } from './profiles.js';
import type { ProfileSettings } from './settings.js';

export function readProfileSettings(
  globals: { profile?: string | undefined },
  env: NodeJS.ProcessEnv,
  cache: ConfigCache,
): ProfileSettings {
  try {
    const store = openProfiles(env, { readOnly: true, cache });
    const { name } = selectProfile(globals, env, store);
    return { name, stored: store.settings(name) };
  } catch (error) {
    // A damaged or unreadable config file: the commands that connect report it when they read
    // the profile's key; the others (verify-signature, sandbox, config, doctor) run on defaults.
    if (!(error instanceof UsageError)) throw error;
    return { name: selectProfile(globals, env, { defaultName: () => undefined }).name, stored: undefined };
  }
}
