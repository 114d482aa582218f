// What `config list` and `config get` show: each setting's value for this command line and where
// it came from, by the one precedence rule of config/settings.ts.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { selectProfile } from '../../config/connection.js';
import { noSuchProfile, openProfiles } from '../../config/profiles.js';
import { givenOptions, type ResolvedSetting, type SettingFlags, type SettingKey, resolveSettings } from '../../config/settings.js';
import type { Context } from '../context.js';

/** The global flags given on this command line. */
export function givenFlags(command: CommandUnknownOpts): SettingFlags {
  return givenOptions(command) as SettingFlags;
}

/** The profile `config` reads or changes: --profile, RFS_PROFILE, the default one, else `default`. */
export function chosenProfile(ctx: Context): { name: string; named: boolean; store: ReturnType<typeof openProfiles> } {
  const store = openProfiles(ctx.io.env, { clock: ctx.clock, cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) });
  return { ...selectProfile(ctx.globals, ctx.io.env, store), store };
}

export function effectiveSettings(ctx: Context, flags: SettingFlags, keys: readonly SettingKey[]): ResolvedSetting[] {
  const { name, named, store } = chosenProfile(ctx);
  const stored = store.settings(name);
  // A profile asked for by name that is not saved is a typo worth stopping for.
  if (named && stored === undefined)
    throw noSuchProfile(
      name,
      store.list().map((p) => p.name),
    );
  return resolveSettings(keys, { flags, env: ctx.io.env, stdoutIsTTY: ctx.io.stdoutIsTTY }, { name, stored });
}

/** What json prints for a setting: null where nothing gives a value. */
export function settingJson(s: ResolvedSetting): { key: string; value: string | number | null; source: string } {
  return { key: s.key, value: s.value ?? null, source: s.source };
}
