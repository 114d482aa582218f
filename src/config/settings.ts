// The settings a profile may hold besides its key (cli.md, config): their names, how a value is
// checked (by the same rule as the matching flag), and the one precedence rule — flag, then
// environment, then profile, then default. Loaded at every start (cli/globals.ts), so it
// imports only the base layer and credentials, never the config file's reader.
import type { InferOptions } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS, type OutputFormat } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { type NumberRule, numberFlag } from '../core/flags.js';
import { sanitize } from '../core/sanitize.js';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../shared/api-limits.js';
import { apiRoot } from './credentials.js';

/** Where `rfs sandbox` listens by default, so that a fresh install talks to the local sandbox. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export const TIMEOUT_RULE: NumberRule = { min: 0.001, max: 3600 };
export const MAX_RETRIES_RULE: NumberRule = { min: 0, max: 100, integer: true };
export const RATE_RULE: NumberRule = { min: 0, max: 1_000_000 };

/** cli.md, Global options: the defaults when no flag, variable or profile gives a value. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_MAX_RETRIES = 5;
/** The workspace's whole limit: one process alone may use all of it. */
export const DEFAULT_RATE = WORKSPACE_REQUESTS_PER_MINUTE;

/** An empty variable (`RFS_API_KEY= rfs …`) means "not set", as it does for most CLIs. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** `-o` in any letter case (cli.md, Global options), or undefined when it names no format. */
export function readOutputFormat(raw: string): OutputFormat | undefined {
  const text = raw.trim().toLowerCase();
  return OUTPUT_FORMATS.find((f) => f === text);
}

/**
 * How a setting is given for one run by a global flag (`rfs --help`): declared here alone, so that
 * cli/globals.ts makes commander's options of it and SettingFlags (below) is derived from it.
 */
interface GlobalFlagSpec {
  /** The flag as commander takes it; its long name is also the member of SettingFlags that holds it. */
  flags: string;
  help: string;
  /** A flag that gives one value of the setting (`--json`: `-o json`). */
  shorthand?: { flags: string; help: string; value: string };
}

interface SettingSpec {
  /** The name `rfs config` uses: the long name of its flag. */
  key: string;
  /** The member of the profile in the config file. */
  field: string;
  /** The global flag that gives it for one run, when it has one. */
  option?: GlobalFlagSpec;
  /** The flag that gives it, as messages name it, when it is not a global flag (a command's own). */
  flag?: string;
  /** The variable that gives it for one run, if there is one. */
  env?: string;
  /** The values it may take, when they are a list (completion offers them). */
  choices?: readonly string[];
  /** The value as stored and used, or a UsageError (that may name `label`). */
  read(raw: string, label: string): string | number;
  /** cli.md, Global options: the value when no flag, variable or profile gives one. */
  fallback(stdoutIsTTY: boolean): string | number | undefined;
  /**
   * A value in the profile that `read` refuses is shown as stored and refused where it is used
   * (exit 2), not passed over for the default: the key must never go to a service the profile
   * does not name.
   */
  strict?: true;
}

/** A number setting, read by the number flags' rule. */
function numberSetting<const K extends string, const F extends string>(
  key: K,
  field: string,
  rule: NumberRule,
  fallback: number,
  option: { flags: F; help: string },
) {
  return {
    key,
    field,
    option,
    read: (raw: string, label: string): number => numberFlag(label, raw, rule),
    fallback: () => fallback,
  } as const satisfies SettingSpec;
}

export const SETTINGS = [
  {
    key: 'base-url',
    field: 'baseUrl',
    option: { flags: '--base-url <url>', help: 'service root; /api/v1 is appended (env RFS_BASE_URL)' },
    env: 'RFS_BASE_URL',
    strict: true,
    read(raw): string {
      const url = raw.trim();
      apiRoot(url); // plain http to a remote host, a query, credentials in the URL: exit 2
      return url;
    },
    fallback: () => DEFAULT_BASE_URL,
  },
  {
    key: 'output',
    field: 'output',
    option: {
      flags: '-o, --output <format>',
      help: 'output format (default: table on a terminal, json otherwise)',
      shorthand: { flags: '--json', help: 'same as -o json', value: 'json' },
    },
    choices: OUTPUT_FORMATS,
    read(raw, label): OutputFormat {
      const format = readOutputFormat(raw);
      if (format === undefined)
        throw new UsageError(`invalid ${label} ${JSON.stringify(raw)}: expected one of ${OUTPUT_FORMATS.join(', ')}`);
      return format;
    },
    fallback: (stdoutIsTTY): OutputFormat => (stdoutIsTTY ? 'table' : 'json'),
  },
  numberSetting('rate', 'rate', RATE_RULE, DEFAULT_RATE, {
    flags: '--rate <n>',
    help: 'client-side pacing in requests per minute; 0 = unpaced',
  }),
  numberSetting('timeout', 'timeout', TIMEOUT_RULE, DEFAULT_TIMEOUT_SECONDS, {
    flags: '--timeout <seconds>',
    help: 'per-attempt timeout in seconds',
  }),
  numberSetting('max-retries', 'maxRetries', MAX_RETRIES_RULE, DEFAULT_MAX_RETRIES, {
    flags: '--max-retries <n>',
    help: 'retries after the first attempt, retryable failures only',
  }),
  {
    key: 'provider',
    field: 'provider',
    // Only `file` and `sync` take --provider, each declaring it with its own help, and read it themselves.
    flag: '--provider',
    // As `file` and `sync` take --provider: any text that is not blank.
    read(raw, label): string {
      if (raw.trim() === '') throw new UsageError(`invalid ${label}: it must not be blank`);
      return raw;
    },
    fallback: () => undefined,
  },
] as const satisfies readonly SettingSpec[];

export type Setting = (typeof SETTINGS)[number];
export type SettingKey = Setting['key'];
export const SETTING_KEYS: readonly SettingKey[] = SETTINGS.map((s) => s.key);

/** A setting that a global flag gives (all but provider). */
export type GlobalSetting = Extract<Setting, { option: GlobalFlagSpec }>;

type SettingsByKey = { [S in Setting as S['key']]: S };

/** The setting `key` names, with its own declaration's type. */
export function settingNamed<K extends SettingKey>(key: K): SettingsByKey[K] {
  // Every key is some setting's, so the find cannot miss.
  return SETTINGS.find((s) => s.key === key) as SettingsByKey[K];
}

/** A flag's long name: `-o, --output <format>` → `output`. */
function longName(flags: string): string {
  return /--([a-z0-9-]+)/i.exec(flags)?.[1] ?? '';
}

/** The member commander parses a flag into: `--max-retries <n>` → `maxRetries` (its long name, camel-cased). */
export function flagMember(flags: string): string {
  return longName(flags).replace(/-([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

/** The flag as messages name it: `--max-retries`. */
function flagLabel(setting: Setting): string {
  return 'option' in setting ? `--${longName(setting.option.flags)}` : setting.flag;
}

// The key is never a setting: argv leaks into shell history and `ps` (cli.md, config).
const KEY_NAMES = new Set(['apikey', 'api-key', 'api_key', 'key', 'rfs_api_key']);

/** The setting a name means (`max-retries`, `maxRetries`, any case), or exit 2 saying which exist. */
export function findSetting(name: string): Setting {
  const wanted = name.trim().toLowerCase();
  if (KEY_NAMES.has(wanted)) {
    throw new UsageError(
      'the API key is not a setting: save it with `rfs auth login`, which reads it from a prompt or stdin, never from argv',
      {
        hint: 'for one run, set RFS_API_KEY in the environment',
      },
    );
  }
  const found = SETTINGS.find((s) => s.key === wanted || s.field.toLowerCase() === wanted);
  if (found === undefined) {
    throw new UsageError(`unknown setting ${JSON.stringify(name)}`, { hint: `settings: ${SETTING_KEYS.join(', ')}` });
  }
  return found;
}

export type SettingSource = 'flag' | 'environment' | 'profile' | 'default';

export interface ResolvedSetting {
  key: SettingKey;
  /** Undefined when nothing gives one and there is no default (provider). */
  value: string | number | undefined;
  source: SettingSource;
  /** What is wrong with the profile's value (not valid by the flag's rule), and how to fix it. */
  problem?: string;
  /** The profile's value is shown as stored, but no command may run on it (a strict setting): exit 2 with `problem`. */
  refused?: true;
}

export interface SettingInputs {
  /** The flag's text when given on this command line. */
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The selected profile's stored members, when it exists. */
  profile?: Readonly<Record<string, unknown>> | undefined;
  profileName: string;
  /** The default when nothing else gives one. */
  fallback: string | number | undefined;
}

/**
 * The one precedence rule (cli.md, config): flag, then environment, then profile, then default.
 * A bad flag or variable is exit 2, as it always was; a bad value in the profile is passed over
 * with a problem to show, so that `rfs config` and `rfs doctor` still run to fix or report it —
 * except a strict setting's, which is kept as stored and marked refused.
 */
export function resolveSetting(setting: Setting, inputs: SettingInputs): ResolvedSetting {
  const given = givenSetting(setting, inputs.flag, inputs.env);
  if (given !== undefined) return { key: setting.key, value: setting.read(given.text, given.label), source: given.source };
  return storedSetting(setting, inputs);
}

/**
 * The last two steps of the rule: the profile's value, else the default. For a value the profile
 * names but no flag or variable gave this run (`auth status`'s other profiles), and for a command
 * that takes the first two steps itself (`auth login` asks for what they do not give).
 */
export function storedSetting(setting: Setting, inputs: Omit<SettingInputs, 'flag' | 'env'>): ResolvedSetting {
  const { key } = setting;
  const stored = inputs.profile?.[setting.field];
  if (stored === undefined || stored === null) return { key, value: inputs.fallback, source: 'default' };
  const label = `${key} of profile "${sanitize(inputs.profileName)}"`;
  try {
    if (typeof stored !== 'string' && typeof stored !== 'number') throw new UsageError(`invalid ${label}: expected text or a number`);
    return { key, value: setting.read(String(stored), label), source: 'profile' };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // Every problem names the setting and its profile, whichever rule refused the value.
    const what = error.message.includes(label) ? error.message : `invalid ${label}: ${error.message}`;
    const fix = `\`rfs config set ${key} <value>\` or \`rfs config unset ${key}\``;
    if ('strict' in setting)
      return { key, value: String(stored), source: 'profile', problem: `${what}; fix it with ${fix}`, refused: true };
    return { key, value: inputs.fallback, source: 'default', problem: `${what}; it is ignored (fix it with ${fix})` };
  }
}

/** The first two steps of the rule: the flag's text, else the variable's; undefined when neither gives one. */
function givenSetting(
  setting: Setting,
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { text: string; label: string; source: 'flag' | 'environment' } | undefined {
  if (flag !== undefined) return { text: flag, label: flagLabel(setting), source: 'flag' };
  const variable: string | undefined = 'env' in setting ? setting.env : undefined;
  const text = variable === undefined ? undefined : envValue(env, variable);
  return variable === undefined || text === undefined ? undefined : { text, label: variable, source: 'environment' };
}

/** The selected profile's stored members (its key left out), when it exists. */
export interface ProfileSettings {
  name: string;
  stored: Readonly<Record<string, unknown>> | undefined;
}

type SettingFlagText = GlobalSetting['option']['flags'] | Extract<GlobalSetting['option'], { shorthand: unknown }>['shorthand']['flags'];
type ParsedFlag<F extends string> = InferOptions<Record<never, never>, F, undefined, undefined, false>;

/**
 * The global flags that give a setting for one run, as commander parsed them (defaults left out):
 * derived from SETTINGS' flags by commander's own typing, so that a renamed flag renames its
 * member here and every reader of the old one is a compile error.
 */
export type SettingFlags = { [F in SettingFlagText as keyof ParsedFlag<F>]?: ParsedFlag<F>[keyof ParsedFlag<F>] };

/** The text this run's global flags give a setting, when they give one (commander's defaults left out). */
function flagText(setting: Setting, flags: SettingFlags): string | undefined {
  if (!('option' in setting)) return undefined;
  const parsed: Readonly<Record<string, unknown>> = flags;
  const { option } = setting;
  if ('shorthand' in option && parsed[flagMember(option.shorthand.flags)] === true) return option.shorthand.value;
  const text = parsed[flagMember(option.flags)];
  return typeof text === 'string' ? text : undefined;
}

/** cli.md, Global options: the default when no flag, variable or profile gives a value. */
export function settingDefault(key: SettingKey, stdoutIsTTY: boolean): string | number | undefined {
  return findSetting(key).fallback(stdoutIsTTY);
}

/** Each of `keys` with its value and where it came from, by the one precedence rule. */
export function resolveSettings(
  keys: readonly SettingKey[],
  run: { flags: SettingFlags; env: NodeJS.ProcessEnv; stdoutIsTTY: boolean },
  profile: ProfileSettings,
): ResolvedSetting[] {
  return keys.map((key) => {
    const setting = findSetting(key);
    return resolveSetting(setting, {
      flag: flagText(setting, run.flags),
      env: run.env,
      profile: profile.stored,
      profileName: profile.name,
      fallback: setting.fallback(run.stdoutIsTTY),
    });
  });
}

/** The value a setting has once resolved: what its `read` gives, or its default (none for provider). */
export type SettingValue<K extends SettingKey> =
  | ReturnType<Extract<Setting, { key: K }>['read']>
  | ReturnType<Extract<Setting, { key: K }>['fallback']>;

/**
 * `keys` resolved by the one rule, each under its own name and with its own type (`rate` a
 * number, `output` a format), where each came from, and the problems of the profile's values that were passed over.
 */
export function resolveSettingValues<K extends SettingKey>(
  keys: readonly K[],
  run: { flags: SettingFlags; env: NodeJS.ProcessEnv; stdoutIsTTY: boolean },
  profile: ProfileSettings,
): { values: { [P in K]: SettingValue<P> }; sources: { [P in K]: SettingSource }; problems: string[] } {
  const values: Partial<Record<SettingKey, unknown>> = {};
  const sources: Partial<Record<SettingKey, SettingSource>> = {};
  const problems: string[] = [];
  for (const resolved of resolveSettings(keys, run, profile)) {
    values[resolved.key] = resolved.value;
    sources[resolved.key] = resolved.source;
    if (resolved.problem !== undefined) problems.push(resolved.problem);
  }
  // Each value came from its own setting's read or fallback, whose types SettingValue names.
  return { values: values as { [P in K]: SettingValue<P> }, sources: sources as { [P in K]: SettingSource }, problems };
}

/**
 * The global flags a command line gave, commander's defaults left out (so that a profile's
 * setting can stand in for them). They live on the root command, whichever command ran.
 */
export function givenOptions(command: GivenCommand): Record<string, unknown> {
  let root = command;
  while (root.parent) root = root.parent;
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(root.opts())) if (root.getOptionValueSource(name) !== 'default') given[name] = value;
  return given;
}

interface GivenCommand {
  parent: GivenCommand | null;
  opts(): object;
  getOptionValueSource(key: string): string | undefined;
}
