// The checks of rfs doctor that need no network: the config file and its modes, the profile,
// where the key comes from, the base URL, and the sync journal. They only look: the store is
// opened read-only (a loose mode is reported, not fixed) and no lock is taken.
import fs from 'node:fs';
import path from 'node:path';
import { selectProfile } from '../../config/connection.js';
import { type EnvironmentKey, environmentGivesKey, environmentKey } from '../../config/environment-key.js';
import { apiRoot, checkKeyFormat } from '../../config/credentials.js';
import { CONFIG_FILE_NAME, configDir, noSuchProfile, openProfiles, type Profile, type ProfileStore } from '../../config/profiles.js';
import { resolveSettings, type SettingFlags } from '../../config/settings.js';
import { EXIT } from '../../core/errors.js';
import { describeOwner, inspectLock } from '../../core/lock.js';
import { isLoopbackHost } from '../../core/loopback.js';
import { redactKey } from '../../core/redact.js';
import { sanitize } from '../../core/sanitize.js';
import { standingOf } from '../../sync/backoff.js';
import { defaultJournalPath, LOCK_LIVE_WITHIN_MS, readJournalFile } from '../../sync/journal.js';
import type { Context } from '../context.js';
import type { Report } from './report.js';

const isPosix = process.platform !== 'win32';

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** The config file and its folder: present, readable, 0600 in 0700. Returns the store when it can be read. */
export function checkConfigFile(ctx: Context, report: Report): ProfileStore | undefined {
  const dir = configDir(ctx.io.env);
  const file = path.join(dir, CONFIG_FILE_NAME);
  let fileMode: number;
  let dirMode: number;
  try {
    dirMode = fs.statSync(dir).mode;
    fileMode = fs.statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      report.failWith('config-file', error, `${file}: `);
      return undefined;
    }
    report.skip('config-file', `none at ${sanitize(file)} (nothing saved yet: rfs auth login)`);
    return openProfiles(ctx.io.env, { readOnly: true, cache: ctx.configCache });
  }
  const store = openProfiles(ctx.io.env, { readOnly: true, cache: ctx.configCache });
  try {
    store.list();
  } catch (error) {
    report.failWith('config-file', error);
    return undefined;
  }
  const loose: string[] = [];
  if (isPosix && (fileMode & 0o077) !== 0) loose.push(`the file is ${modeText(fileMode)}, not 0600`);
  if (isPosix && (dirMode & 0o077) !== 0) loose.push(`the folder is ${modeText(dirMode)}, not 0700`);
  if (loose.length > 0) {
    report.warn(
      'config-file',
      `${sanitize(file)}: ${loose.join('; ')} (others may read the keys; rfs tightens them the next time it uses the file)`,
    );
  } else {
    report.ok('config-file', `${sanitize(file)}${isPosix ? ' (0600, folder 0700)' : ''}`);
  }
  return store;
}

export interface Selected {
  name: string;
  profile: Profile | undefined;
}

const WHY = {
  flag: 'from --profile',
  environment: 'from RFS_PROFILE',
  'marked default': 'the default profile',
  fallback: 'no default is marked',
} as const;

/** Which profile this run uses and why; undefined when it cannot go on (a profile named but not saved). */
export function checkProfile(ctx: Context, store: ProfileStore, report: Report): Selected | undefined {
  const { globals, io } = ctx;
  const { name, named, from } = selectProfile(globals, io.env, store);
  const profile = store.get(name);
  const why = WHY[from];
  const saved = store.settings(name) !== undefined;
  if (named && !saved && !environmentGivesKey(io.env)) {
    report.fail(
      'profile',
      sanitize(
        noSuchProfile(
          name,
          store.list().map((p) => p.name),
        ).message,
      ),
      EXIT.USAGE,
    );
    return undefined;
  }
  const state = !saved ? '; not saved' : profile === undefined ? '; settings only, no key saved' : '';
  report.ok('profile', `${sanitize(name)}${why || state ? ` (${why}${state})` : ''}`);
  return { name, profile };
}

/** Where the key comes from, and that it looks like a key; the key itself only redacted. */
export function checkKeySource(ctx: Context, selected: Selected, report: Report): boolean {
  let given: EnvironmentKey | undefined;
  try {
    given = environmentKey(ctx.io.env);
  } catch (error) {
    report.failWith('key-source', error, '');
    return false;
  }
  const envKey = given?.key;
  const raw = envKey ?? selected.profile?.apiKey;
  if (raw === undefined) {
    report.fail('key-source', 'no API key configured: run `rfs auth login` to save one, or set RFS_API_KEY', EXIT.AUTH);
    return false;
  }
  const from =
    envKey !== undefined
      ? `${given?.from}${selected.profile ? ` (overrides profile ${sanitize(selected.name)})` : ''}`
      : `profile ${sanitize(selected.name)}`;
  try {
    const key = checkKeyFormat(raw);
    report.ok('key-source', `${from}: ${redactKey(key)}`);
    return true;
  } catch (error) {
    report.failWith('key-source', error, `${from}: `);
    return false;
  }
}

/** The service root and where it came from; undefined when it is refused (plain http to a remote host, …). */
export function checkBaseUrl(ctx: Context, flags: SettingFlags, selected: Selected, store: ProfileStore, report: Report): URL | undefined {
  try {
    const [resolved] = resolveSettings(
      ['base-url'],
      { flags, env: ctx.io.env, stdoutIsTTY: ctx.io.stdoutIsTTY },
      { name: selected.name, stored: store.settings(selected.name) },
    );
    if (resolved?.problem !== undefined) {
      report.fail('base-url', resolved.problem, EXIT.USAGE);
      return undefined;
    }
    const text = String(resolved?.value).trim();
    apiRoot(text);
    const url = new URL(text);
    const how = url.protocol === 'https:' ? 'https' : isLoopbackHost(url.hostname) ? 'plain http to loopback' : 'http';
    report.ok('base-url', `${sanitize(url.origin + url.pathname.replace(/\/+$/, ''))} (${how}; from ${resolved?.source})`);
    return url;
  } catch (error) {
    report.failWith('base-url', error);
    return undefined;
  }
}

/** The sync journal of this profile: entries a stopped sync left pending, and a stale lock. */
export function checkJournal(ctx: Context, profileName: string, report: Report): void {
  const file = defaultJournalPath(ctx.io.env, profileName);
  if (!fs.existsSync(file)) {
    report.skip('sync-journal', `none at ${sanitize(file)} (rfs sync has not run for this profile)`);
    return;
  }
  let journal: ReturnType<typeof readJournalFile>;
  try {
    // Streamed with bounds, as rfs sync reads it: a huge or endless file is a failed check.
    journal = readJournalFile(file);
  } catch (error) {
    report.failWith('sync-journal', error, `${sanitize(file)}: `);
    return;
  }
  const { states, problems } = journal;
  const notes: string[] = [];
  const warnings: string[] = [];
  // Only a recording whose command started without an outcome, or whose answer is not filed yet,
  // was left by a sync that stopped midway; a command that failed cleanly is failing or parked.
  const count = { pending: 0, failing: 0, parked: 0 };
  for (const state of states.values()) count[standingOf(state).state] += 1;
  if (count.pending > 0) warnings.push(`${count.pending} pending (a sync was stopped midway; the next rfs sync finishes them first)`);
  if (count.failing > 0) warnings.push(`${count.failing} failing (their command failed; rfs sync status says when each is tried again)`);
  if (count.parked > 0) warnings.push(`${count.parked} parked (never run again until rfs sync --retry-parked)`);
  if (states.size === 0) notes.push('nothing pending');
  if (problems.length > 0) warnings.push(`${problems.length} damaged line${problems.length === 1 ? '' : 's'} (skipped by rfs sync)`);
  const lock = inspectLock(`${file}.lock`, { liveWithinMs: LOCK_LIVE_WITHIN_MS });
  if (lock?.stale)
    warnings.push(
      `a stale lock${lock.owner ? ` of ${sanitize(describeOwner(lock.owner))}, which is not running` : ''} (the next rfs sync takes it over)`,
    );
  else if (lock) notes.push(`in use by ${lock.owner ? sanitize(describeOwner(lock.owner)) : 'pid ?'}`);
  const detail = `${sanitize(file)}: ${[...warnings, ...notes].join('; ')}`;
  if (warnings.length > 0) report.warn('sync-journal', detail);
  else report.ok('sync-journal', detail);
}
