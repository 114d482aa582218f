// Named connections (base URL + API key) in one JSON file, written atomically and durably
// (core/atomic-write.ts), mode 0600, in a folder of mode 0700 (cli.md, Connection and
// credentials). The file holds API keys, so no message here ever quotes it.
// Every change is a read-modify-write under a lock file beside it (core/lock.ts), with the read
// done after the lock is taken: two rfs processes changing profiles at once (two logins, a
// login and a logout) would otherwise each write the file as they read it, losing the other's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomicSync } from '../core/atomic-write.js';
import { EXIT, RfsError, UsageError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import { LockBusyError, withLock } from '../core/lock.js';
import { NotOwnFileError, setOwnMode } from '../core/own-file.js';
import { apiRoot, checkKeyFormat } from './credentials.js';
import { sanitize } from '../core/sanitize.js';
import { DEFAULT_BASE_URL } from './settings.js';
// The file's shape is stored-config.ts (zod); what runs is its check generated as plain functions
// (scripts/checks.mjs), so that reading the file loads no schema library.
import { StoredConfig as checkStoredConfig } from './stored-config.generated.js';
import type { StoredConfig } from './stored-config.js';

export const CONFIG_FILE_NAME = 'config.json';

// A change holds the lock for milliseconds (a read, an fsynced write): a wait of seconds means a
// stuck or stopped rfs, and a lock a minute old is stale even if its pid lives on (reused).
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 60_000;

/** Another rfs kept the config locked for the whole wait: transient, worth a retry (exit 6). */
class ConfigBusyError extends RfsError {
  override readonly exitCode = EXIT.TRANSIENT;
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The config file as one run read it, by path: the file is read and parsed at most once per run
 * however many stores look at it (cli/run.ts makes one per run). A change still reads it afresh
 * under the lock, then keeps what it wrote.
 */
export type ConfigCache = Map<string, StoredConfig | UsageError>;
type StoredProfile = StoredConfig['profiles'][string];

export interface Profile {
  name: string;
  baseUrl: string;
  apiKey: string;
}

export interface ProfileStore {
  /** The config file (it may not exist yet). */
  readonly path: string;
  /** Every profile with a key, by name, with the default marked. */
  list(): (Profile & { isDefault: boolean })[];
  /** The profile, if it has a key (one with settings only is not a connection). */
  get(name: string): Profile | undefined;
  /**
   * Every saved profile's name, with a key or with settings only (`rfs config set --profile
   * staging-eu output json`): what `-p` can name, with the key from RFS_API_KEY.
   */
  names(): string[];
  /** Adds or replaces a profile; the first one saved (or any, while none is default) becomes the default. */
  save(name: string, connection: { baseUrl: string; apiKey: string }): Promise<void>;
  /** Forgets a profile and its key; false when there was none of that name. */
  remove(name: string): Promise<boolean>;
  setDefault(name: string): Promise<void>;
  /** The profile marked default, if that profile exists. */
  defaultName(): string | undefined;
  /** The profile's stored members other than its key (baseUrl as stored, the settings of `rfs config`), keyed or not. */
  settings(name: string): Readonly<Record<string, unknown>> | undefined;
  /**
   * Sets (a value) or removes (undefined) members of a profile, never its key; setting one in a
   * profile not saved yet creates it without a key. The values are already checked (config/settings.ts).
   */
  changeSettings(name: string, changes: Readonly<Record<string, string | number | undefined>>): Promise<void>;
}

export interface OpenOptions {
  /** Look only: no folder or file is tightened (rfs doctor reports loose modes, it does not fix them). */
  readOnly?: boolean;
  /** Times the wait for another rfs's lock (the run's clock; tests move it at once). */
  clock?: Clock;
  /** The run's copy of the file; without it the store keeps its own. */
  cache?: ConfigCache;
  /** Told (once per run) of a config folder others can reach, which rfs does not change. */
  warn?: (message: string) => void;
}

/** `RFS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/rfs`, else `~/.config/rfs`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.RFS_CONFIG_DIR) return path.resolve(env.RFS_CONFIG_DIR);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rfs');
  return path.join(env.HOME || os.homedir(), '.config', 'rfs');
}

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      `invalid profile name "${sanitize(name)}": use up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  return name;
}

function fsFailure(what: string, target: string, error: unknown): UsageError {
  if (error instanceof NotOwnFileError) {
    return new UsageError(`cannot write the config ${what}: ${error.message}`, {
      cause: error,
      hint: `replace ${target} with a copy of the file it points to, or set RFS_CONFIG_DIR to a folder of your own`,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new UsageError(`cannot use the config ${what} ${target}${code ? ` (${code})` : ''}`, {
    cause: error,
    hint: 'set RFS_CONFIG_DIR to a folder you own',
  });
}

const isPosix = process.platform !== 'win32';

/** Folders already warned about, per run (its cache): one warning however often the store opens. */
const warnedFolders = new WeakMap<ConfigCache, Set<string>>();

/**
 * Creates the folder 0700 when it is missing. A folder rfs did not create is never changed: it
 * may be shared on purpose (RFS_CONFIG_DIR=/tmp, whose mode 1777 and sticky bit other programs
 * rely on); one that others can reach is warned about instead.
 */
function ensurePrivateDir(dir: string, notice: (dir: string, mode: number) => void): void {
  let made: string | undefined;
  try {
    made = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Made here: exactly 0700, whatever the umask took away.
    if (isPosix && made !== undefined) setOwnMode(dir, 0o700, { kind: 'directory', change: 'exact' });
  } catch (error) {
    throw fsFailure('folder', dir, error);
  }
  if (isPosix && made === undefined) {
    const mode = fs.statSync(dir).mode & 0o7777;
    if ((mode & 0o077) !== 0) notice(dir, mode);
  }
}

/** The warning for a config folder that others can reach, which rfs leaves as it is. */
function looseFolderWarning(dir: string, mode: number): string {
  return `the config folder ${dir} has mode ${mode.toString(8).padStart(4, '0')}, not 0700; rfs did not create it and leaves its mode as it is: \`chmod 700 ${dir}\` if it is yours alone, or set RFS_CONFIG_DIR to a folder of your own`;
}

/**
 * A config file left readable by others (made by hand, or by an old version) is tightened; a
 * link at its name is not (core/own-file.ts: its target may be any file), nor another's file.
 */
function tightenFile(file: string): void {
  if (!isPosix) return;
  try {
    setOwnMode(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw fsFailure('file', file, error);
  }
}

function damaged(file: string, detail: string, cause?: unknown): UsageError {
  return new UsageError(`the config file ${file} is damaged: ${detail}`, {
    cause,
    hint: `fix or delete ${file}, then run \`rfs auth login\` again`,
  });
}

/** What is wrong with the file, in words that never quote it. */
class DamagedFile extends Error {}

function parseConfigText(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    // One byte-order mark, as Notepad and some Windows tools save UTF-8, is not part of the
    // JSON (JSON.parse refuses it); the file is written back without it.
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch {
    // Never the parser's own message: since Node 20 it quotes the file's text, i.e. the API key.
    throw new DamagedFile('it is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DamagedFile('it is not a JSON object');
  return value as Record<string, unknown>;
}

function readError(file: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  if (error instanceof DamagedFile) return damaged(file, error.message);
  if ((error as NodeJS.ErrnoException | undefined)?.code) return fsFailure('file', file, error);
  return damaged(file, 'it could not be read');
}

/** A config file is a few profiles: more than this is not one (and is never read whole). */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * The config file's text. Opened without waiting (a FIFO would otherwise hang every command
 * until something writes to it), then refused unless it is a regular file of a sane size.
 */
function readConfigFile(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      throw new UsageError(`the config file ${file} is not a regular file (a FIFO, a device or a folder): rfs does not read it`, {
        hint: `remove it, or set RFS_CONFIG_DIR to a folder of your own`,
      });
    }
    if (stat.size > MAX_CONFIG_BYTES) throw new DamagedFile(`it is larger than ${MAX_CONFIG_BYTES} bytes`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

export function openProfiles(env: NodeJS.ProcessEnv, options: OpenOptions = {}): ProfileStore {
  const dir = configDir(env);
  const file = path.join(dir, CONFIG_FILE_NAME);
  const cache: ConfigCache = options.cache ?? new Map();
  const notice = (folder: string, mode: number): void => {
    const warned = warnedFolders.get(cache) ?? new Set<string>();
    warnedFolders.set(cache, warned);
    if (warned.has(folder)) return;
    warned.add(folder);
    options.warn?.(looseFolderWarning(folder, mode));
  };
  // A file that others can read is tightened as soon as rfs sees it (the file is rfs's own); a
  // missing folder is created (0700) only when there is something to write.
  if (!options.readOnly) {
    if (fs.existsSync(dir)) ensurePrivateDir(dir, notice);
    tightenFile(file);
  }

  const read = (): StoredConfig => {
    let raw: Record<string, unknown>;
    try {
      raw = parseConfigText(readConfigFile(file));
    } catch (error) {
      // No file yet: no profiles, and nothing to check.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw readError(file, error);
    }
    const parsed = checkStoredConfig({ ...raw });
    if (!parsed.success) {
      const issue = parsed.issues[0];
      const where = issue?.path.length ? issue.path.map(String).join('.') : 'the top level';
      throw damaged(file, `${sanitize(where)}: ${sanitize(issue?.message ?? 'unexpected shape')}`);
    }
    return parsed.data;
  };

  /** The file as this run first read it (or last wrote it); a damaged file's error is kept too. */
  const look = (): StoredConfig => {
    let known = cache.get(file);
    if (known === undefined) {
      try {
        known = read();
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        known = error;
      }
      cache.set(file, known);
    }
    if (known instanceof UsageError) throw known;
    return known;
  };

  const write = (value: StoredConfig): void => {
    ensurePrivateDir(dir, notice);
    try {
      // Tab-indented, as conf wrote it before, so that a diff of an old and a new file is small.
      writeFileAtomicSync(file, JSON.stringify(value, undefined, '\t'), { mode: 0o600 });
    } catch (error) {
      throw fsFailure('file', file, error);
    }
    cache.set(file, value);
  };

  // The folder is created (0700) for the lock, as it would be for the write; a change that
  // finds no folder has no file to change either, and creates nothing.
  const change = async <T>(step: () => T): Promise<T> => {
    ensurePrivateDir(dir, notice);
    try {
      return await withLock(`${file}.lock`, step, {
        waitMs: LOCK_WAIT_MS,
        staleMs: LOCK_STALE_MS,
        ...(options.clock ? { clock: options.clock } : {}),
      });
    } catch (error) {
      if (!(error instanceof LockBusyError)) throw error;
      const owner = error.owner ? ` (pid ${error.owner.pid}, since ${error.owner.since.toISOString()})` : '';
      throw new ConfigBusyError(`another rfs kept the config file ${file} locked${owner} for ${LOCK_WAIT_MS / 1000} s`, {
        cause: error,
        hint: `try again; if no other rfs is running, delete ${error.lockPath}`,
      });
    }
  };
  const changeIfAny = async <T>(step: () => T): Promise<T> => (fs.existsSync(dir) ? change(step) : step());

  const has = (stored: StoredConfig, name: string): boolean => Object.hasOwn(stored.profiles, name);

  const names = (stored: StoredConfig): string[] => Object.keys(stored.profiles).sort();

  /** The profile as a connection, if it holds a key; without a base URL it uses the default service root. */
  const keyed = (stored: StoredConfig, name: string): Profile | undefined => {
    const p = has(stored, name) ? (stored.profiles[name] as StoredProfile) : undefined;
    if (p?.apiKey === undefined) return undefined;
    return { name, baseUrl: p.baseUrl ?? DEFAULT_BASE_URL, apiKey: p.apiKey };
  };

  const markedDefault = (stored: StoredConfig): string | undefined =>
    stored.defaultProfile !== undefined && has(stored, stored.defaultProfile) ? stored.defaultProfile : undefined;

  return {
    path: file,
    list() {
      const stored = look();
      const def = markedDefault(stored);
      return names(stored).flatMap((name) => {
        const p = keyed(stored, name);
        return p === undefined ? [] : [{ ...p, isDefault: name === def }];
      });
    },
    get(name) {
      return keyed(look(), name);
    },
    names() {
      return names(look());
    },
    async save(name, connection) {
      checkProfileName(name);
      const apiKey = checkKeyFormat(connection.apiKey);
      const baseUrl = connection.baseUrl.trim();
      apiRoot(baseUrl); // refuses plain http to a remote host before it is ever stored
      await change(() => {
        const stored = read();
        const profiles = { ...stored.profiles, [name]: { ...stored.profiles[name], baseUrl, apiKey } };
        const defaultProfile = markedDefault(stored) ?? name;
        write({ ...stored, profiles, defaultProfile });
      });
    },
    remove: (name) =>
      changeIfAny(() => {
        const stored = read();
        if (!has(stored, name)) return false;
        const profiles = { ...stored.profiles };
        delete profiles[name];
        const next: StoredConfig = { ...stored, profiles };
        if (markedDefault(stored) === name) {
          // With one profile left there is no question which one is meant; with several, the
          // user chooses (`rfs auth switch`) rather than rfs guessing.
          const left = Object.keys(profiles);
          if (left.length === 1) next.defaultProfile = left[0];
          else delete next.defaultProfile;
        }
        write(next);
        return true;
      }),
    setDefault: (name) =>
      changeIfAny(() => {
        const stored = read();
        if (!has(stored, name)) throw noSuchProfile(name, names(stored), `create it with \`rfs auth login --profile ${sanitize(name)}\``);
        write({ ...stored, defaultProfile: name });
      }),
    defaultName() {
      return markedDefault(look());
    },
    settings(name) {
      const stored = look();
      if (!has(stored, name)) return undefined;
      const { apiKey: _key, ...rest } = stored.profiles[name] as StoredProfile;
      return rest;
    },
    async changeSettings(name, changes) {
      const setsAny = Object.values(changes).some((v) => v !== undefined);
      if (setsAny) checkProfileName(name);
      // Only a value to set may create the folder and the file; removing one from nothing is done.
      await (setsAny ? change : changeIfAny)(() => {
        const stored = read();
        if (!has(stored, name) && !setsAny) return;
        const profile: Record<string, unknown> = { ...stored.profiles[name] };
        for (const [field, value] of Object.entries(changes)) {
          if (field === 'apiKey') continue; // the key is saved by auth login only
          if (value === undefined) delete profile[field];
          else profile[field] = value;
        }
        write({ ...stored, profiles: { ...stored.profiles, [name]: profile as StoredProfile } });
      });
    },
  };
}

/** A profile asked for by name that is not saved: the message lists the ones that are. */
export function noSuchProfile(name: string, existing: readonly string[], hint?: string): UsageError {
  const list = existing.length ? `saved profiles: ${existing.map((n) => sanitize(n)).join(', ')}` : 'no profiles are saved yet';
  return new UsageError(`no profile named "${sanitize(name)}" (${list})`, hint === undefined ? undefined : { hint });
}
