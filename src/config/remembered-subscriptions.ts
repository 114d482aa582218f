// The webhook subscriptions rfs has seen (cli.md, deliveries, "Deleted subscriptions"). The
// service keeps listing a deleted subscription's deliveries by its id, but GET /webhooks no
// longer names it: a subscription rfs never saw again is invisible behind a full FAILED list.
// So rfs remembers every subscription id (and URL) that a command has seen — `webhooks list`
// and `create`, `listen --subscribe`, and the deliveries lists — and the incident commands list
// FAILED per remembered subscription too, showing those GET /webhooks no longer has as deleted.
//
// Where: `$XDG_STATE_HOME/rfs/subscriptions.json` (`~/.local/state/rfs/…` without it), the state
// folder of the sync journal; written atomically (core/atomic-write.ts), 0600, merged with what
// another process wrote meanwhile, read and written under a lock (core/lock.ts) so that two
// processes saving at once lose nothing. Without XDG_STATE_HOME and HOME nothing is remembered.
//
// Per what: the base URL and the profile. The API has no workspace id, and rfs derives none
// from the key: a hash of the key (even salted, even cut short) would let anyone holding the
// file confirm a guessed or leaked key offline, and it would change at every rotation while the
// workspace stays. The profile is the name the user gives a workspace's connection; an
// environment key without a profile is the `default` profile's. Two workspaces behind one
// profile (RFS_API_KEY switched under it) cannot show each other anything: the API answers a
// subscription id of another workspace with an empty list, and an id that lists nothing is
// forgotten. Nothing secret is stored: ids and URLs, as `webhooks list` prints them.
//
// Bounded: at most 100 subscriptions per profile (the API allows 50 at once; the ones seen
// longest ago go first; the bound holds on read too, so a file written by hand or by another
// version never costs more lists), 20 base URL and profile pairs (the least used go), deleted
// ones for 30 days after they were last seen. What is written always fits what is read: an id
// over 200 characters is not remembered, a URL is kept to its first 500, a profile's
// subscriptions to 64 KiB (the newest kept) and the file to 256 KiB (the least used profiles
// go). A file rfs cannot read (over 256 KiB, not JSON, not this shape) is set aside by the next
// save, never rewritten, and that is said on stderr (core/state-file.ts). An id the service
// refuses (`forgetRefused`) is forgotten.
//
// Trusted only when it is the user's own (core/state-file.ts: not a link, not another user's,
// not writable by others, in a folder of the user's that others cannot write): its ids are
// listed by every incident command, so a planted file would cost requests on every run.
// Otherwise it is neither read nor written, and that is said once on stderr.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import type { Clock } from '../core/clock.js';
import { LockBusyError, withLock } from '../core/lock.js';
import { checkStateFile, setAside } from '../core/state-file.js';
import { stateFolder } from './state-folder.js';

export const MAX_SUBSCRIPTIONS = 100;
export const MAX_WORKSPACES = 20;
export const FORGET_DELETED_AFTER_MS = 30 * 86_400_000;
/** The most rfs reads of the file; what it writes always fits. */
export const MAX_FILE_BYTES = 256 * 1024;
/** The most one profile's subscriptions take in the file (so a few profiles always fit). */
export const MAX_WORKSPACE_BYTES = 64 * 1024;
/** An id longer than this is none the service gave: not remembered. */
export const MAX_ID_CHARS = 200;
/** A longer URL is kept cut (with an ellipsis): it only helps a person tell subscriptions apart. */
export const MAX_URL_CHARS = 500;
const FILE_NAME = 'subscriptions.json';
/**
 * A save waits this long for other processes' saves (polling with a growing pause, core/lock.ts),
 * then gives up and says what it could not save. A save takes milliseconds: twenty runs at once
 * wait well under a second each.
 */
export const LOCK_WAIT_MS = 10_000;
/** A save takes milliseconds: a lock older than this was left by a process that died. */
const LOCK_STALE_MS = 30_000;

const byNewestSeen = (a: RememberedSubscription, b: RememberedSubscription): number =>
  a.seenAt < b.seenAt ? 1 : a.seenAt > b.seenAt ? -1 : 0;

/** Newest first by when they were seen, at most MAX_SUBSCRIPTIONS. */
const bounded = (subscriptions: readonly RememberedSubscription[]): RememberedSubscription[] =>
  [...subscriptions].sort(byNewestSeen).slice(0, MAX_SUBSCRIPTIONS);

const Remembered = z.object({
  id: z.string(),
  url: z.nullable(z.string()),
  /** When a command last saw it (ISO 8601): in GET /webhooks, or in a deliveries list. */
  seenAt: z.string(),
  /** When a complete GET /webhooks first did not list it: it was deleted. */
  deletedSeenAt: z.optional(z.string()),
});
export type RememberedSubscription = z.infer<typeof Remembered>;

const Workspace = z.object({ usedAt: z.string(), subscriptions: z.array(Remembered) });
const StoredFile = z.object({ version: z.literal(1), workspaces: z.record(z.string(), Workspace) });
type StoredFile = z.infer<typeof StoredFile>;
type StoredWorkspace = z.infer<typeof Workspace>;

/** Which workspace's memory: the base URL as rfs uses it and the profile (see above). */
export interface WorkspaceKey {
  baseUrl: string;
  profile: string;
}

const keyOf = (k: WorkspaceKey): string => `${k.baseUrl.replace(/\/+$/, '')} ${k.profile}`;

/** A URL as it is kept: at most MAX_URL_CHARS code points, an ellipsis last when cut. */
function keptUrl(url: string | null): string | null {
  if (url === null || url.length <= MAX_URL_CHARS) return url;
  return `${Array.from(url)
    .slice(0, MAX_URL_CHARS - 1)
    .join('')}…`;
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** What the file holds, as far as rfs may use it. */
type ReadResult =
  | { kind: 'ok'; stored: StoredFile }
  | { kind: 'missing' }
  /** Not the user's own (core/state-file.ts): neither read nor written. */
  | { kind: 'refused'; why: string }
  /** The user's, but not what rfs reads back: set aside by the next save. */
  | { kind: 'unreadable'; why: string };

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

function readStored(file: string): ReadResult {
  // Another run's atomic save may replace the file between the check and the open: read again.
  for (let attempt = 0; ; attempt++) {
    const read = readChecked(file);
    if (read.kind !== 'replaced') return read;
    if (attempt >= 4) return { kind: 'missing' }; // Still being replaced: the save re-reads under the lock.
  }
}

function readChecked(file: string): ReadResult | { kind: 'replaced' } {
  const check = checkStateFile(file);
  if (check.kind !== 'own') return check;
  if (check.stats.size > MAX_FILE_BYTES) {
    return { kind: 'unreadable', why: `it is ${check.stats.size} bytes, over the ${MAX_FILE_BYTES} rfs reads` };
  }
  let text: string;
  try {
    // The file checked, not one swapped in since: no link followed, the same inode.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    try {
      const stats = fs.fstatSync(fd);
      if (stats.ino !== check.stats.ino || stats.dev !== check.stats.dev) return { kind: 'replaced' };
      const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
      let got = 0;
      for (;;) {
        const n = fs.readSync(fd, buffer, got, buffer.length - got, got);
        if (n === 0) break;
        got += n;
        if (got > MAX_FILE_BYTES) return { kind: 'unreadable', why: `it is over the ${MAX_FILE_BYTES} bytes rfs reads` };
      }
      text = buffer.subarray(0, got).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'replaced' };
    // A link swapped in since the check (O_NOFOLLOW).
    return { kind: 'refused', why: `${file} could not be read (${code ?? 'error'})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', why: 'it is not JSON' };
  }
  const parsed = StoredFile.safeParse(json);
  return parsed.success ? { kind: 'ok', stored: parsed.data } : { kind: 'unreadable', why: 'it is not the file rfs writes' };
}

/**
 * The file's text for `stored`, within the bounds: each profile's subscriptions the newest that
 * fit MAX_WORKSPACE_BYTES, the most recently used profiles that fit MAX_FILE_BYTES (`keep`'s
 * first, always).
 */
function fitted(stored: StoredFile, keep: string): string {
  const budgeted: [string, StoredWorkspace][] = Object.entries(stored.workspaces).map(([key, w]) => {
    const subscriptions: RememberedSubscription[] = [];
    let bytes = 0;
    for (const s of bounded(w.subscriptions)) {
      const kept = { ...s, url: keptUrl(s.url) };
      const size = bytesOf(kept) + 1;
      if (kept.id.length > MAX_ID_CHARS || bytes + size > MAX_WORKSPACE_BYTES) continue;
      subscriptions.push(kept);
      bytes += size;
    }
    return [key, { usedAt: w.usedAt, subscriptions }];
  });
  budgeted.sort(([ka, a], [kb, b]) => (ka === keep ? -1 : kb === keep ? 1 : a.usedAt < b.usedAt ? 1 : a.usedAt > b.usedAt ? -1 : 0));
  const chosen: [string, StoredWorkspace][] = [];
  let total = bytesOf({ version: 1, workspaces: {} });
  for (const [key, w] of budgeted.slice(0, MAX_WORKSPACES)) {
    const size = bytesOf(key) + bytesOf(w) + 2;
    if (total + size > MAX_FILE_BYTES) continue;
    chosen.push([key, w]);
    total += size;
  }
  return `${JSON.stringify({ version: 1, workspaces: Object.fromEntries(chosen) })}\n`;
}

/** What one run knows of one workspace's subscriptions, and what it learns; `save()` writes it. */
export class RememberedSubscriptions {
  private readonly byId = new Map<string, RememberedSubscription>();
  private readonly forgotten = new Set<string>();
  private changed = false;
  /** Not the user's own: neither read nor written. */
  private refused = false;
  private readonly problems: string[] = [];

  private constructor(
    private readonly file: string | undefined,
    private readonly key: string,
    private readonly now: () => number,
    private readonly lockClock: Clock | undefined,
  ) {}

  /**
   * The memory of `workspace` as the state folder holds it (none without a state folder).
   * `lockClock`: whose time a save's wait for the lock is measured in (tests pass one that moves at once).
   */
  static open(
    env: NodeJS.ProcessEnv,
    workspace: WorkspaceKey,
    now: () => number,
    options: { lockClock?: Clock } = {},
  ): RememberedSubscriptions {
    const folder = stateFolder(env);
    const file = folder === undefined ? undefined : path.join(folder, FILE_NAME);
    const memory = new RememberedSubscriptions(file, keyOf(workspace), now, options.lockClock);
    if (file === undefined) return memory;
    const read = readStored(file);
    if (read.kind === 'refused') {
      memory.refused = true;
      memory.problems.push(
        `the remembered subscriptions are not used: ${read.why}, and rfs reads only a state file that is the user's own`,
      );
    } else if (read.kind === 'unreadable') {
      // Said, and set aside, by the save (under the lock: another run may be doing it).
      memory.changed = true;
    } else if (read.kind === 'ok') {
      for (const s of bounded(read.stored.workspaces[memory.key]?.subscriptions ?? [])) memory.byId.set(s.id, s);
    }
    return memory;
  }

  /**
   * What went wrong with the file since the last call (not the user's own, set aside, not
   * saved), for stderr: the memory only helps, so none of it is the command's failure.
   */
  takeProblems(): string[] {
    return this.problems.splice(0);
  }

  /** Every remembered subscription, those seen last first. */
  all(): RememberedSubscription[] {
    return [...this.byId.values()].sort(byNewestSeen);
  }

  get(id: string): RememberedSubscription | undefined {
    return this.byId.get(id);
  }

  /** The URL remembered for `id`, or null. */
  url(id: string): string | null {
    return this.byId.get(id)?.url ?? null;
  }

  /** Subscriptions seen alive (GET /webhooks, POST /webhooks): id and URL. */
  saw(subscriptions: Iterable<{ id: string; url?: unknown }>): void {
    const at = new Date(this.now()).toISOString();
    for (const s of subscriptions) {
      if (s.id === '' || s.id.length > MAX_ID_CHARS) continue;
      const url = typeof s.url === 'string' ? keptUrl(s.url) : (this.byId.get(s.id)?.url ?? null);
      this.byId.set(s.id, { id: s.id, url, seenAt: at });
      this.forgotten.delete(s.id);
      this.changed = true;
    }
  }
  /**
   * A complete listing of GET /webhooks (every page): the subscriptions it holds are alive, and
   * every remembered one it does not hold was deleted (from now, if not known before).
   */
  sawAllLive(live: Iterable<{ id: string; url?: unknown }>): void {
    const ids = new Set<string>();
    const list = [...live];
    for (const s of list) ids.add(s.id);
    this.saw(list);
    const at = new Date(this.now()).toISOString();
    for (const s of this.byId.values()) {
      if (!ids.has(s.id) && s.deletedSeenAt === undefined) {
        s.deletedSeenAt = at;
        this.changed = true;
      }
    }
  }

  /** Subscription ids named by deliveries (a list's rows): remembered, their URL unknown until seen. */
  sawIds(ids: Iterable<string>): void {
    for (const id of ids) {
      if (id === '' || id.length > MAX_ID_CHARS || this.byId.has(id)) continue;
      this.byId.set(id, { id, url: null, seenAt: new Date(this.now()).toISOString() });
      this.changed = true;
    }
  }

  /** Forgets subscriptions (a deleted one whose lists show nothing any more). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      if (this.byId.delete(id)) {
        this.forgotten.add(id);
        this.changed = true;
      }
    }
  }

  /**
   * Writes what this run learned, merged with the file as it is now (another run may have
   * written meanwhile), within the bounds. Answers false when it could not be written (with a
   * problem to say, `takeProblems`): the memory only helps, so its failure is never the command's.
   */
  async save(): Promise<boolean> {
    if (!this.changed || this.file === undefined) return true;
    if (this.refused) return false;
    const file = this.file;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      await withLock(`${file}.lock`, () => this.merge(file), {
        waitMs: LOCK_WAIT_MS,
        staleMs: LOCK_STALE_MS,
        ...(this.lockClock === undefined ? {} : { clock: this.lockClock }),
      });
      this.changed = false;
      return !this.refused;
    } catch (error) {
      const ids = [...this.byId.keys()].slice(0, 3);
      const seen =
        this.byId.size === 0
          ? 'nothing'
          : `${this.byId.size} subscription${this.byId.size === 1 ? '' : 's'} (${ids.join(', ')}${this.byId.size > ids.length ? ', …' : ''})`;
      const why =
        error instanceof LockBusyError
          ? `another rfs held ${error.lockPath} for ${LOCK_WAIT_MS / 1000} s`
          : `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      this.problems.push(`the remembered subscriptions were not saved (${why}): this run's ${seen} will not be remembered`);
      return false;
    }
  }

  /** Reads the file as it is now, merges this run's knowledge in, and writes it: under the lock. */
  private async merge(file: string): Promise<void> {
    const now = this.now();
    const read = readStored(file);
    if (read.kind === 'refused') {
      // Made someone else's since it was opened: left as it is.
      this.refused = true;
      this.problems.push(
        `the remembered subscriptions are not saved: ${read.why}, and rfs writes only a state file that is the user's own`,
      );
      return;
    }
    if (read.kind === 'unreadable') {
      const aside = setAside(file, now);
      this.problems.push(
        `the remembered subscriptions file ${file} could not be read (${read.why}): moved aside to ${aside}, and a new one started`,
      );
    }
    const stored: StoredFile = read.kind === 'ok' ? read.stored : { version: 1, workspaces: {} };
    const merged = new Map((stored.workspaces[this.key]?.subscriptions ?? []).map((s) => [s.id, s]));
    for (const id of this.forgotten) merged.delete(id);
    for (const s of this.byId.values()) {
      const other = merged.get(s.id);
      merged.set(s.id, other !== undefined && other.seenAt > s.seenAt ? other : s);
    }
    const kept = [...merged.values()].filter((s) => s.deletedSeenAt === undefined || now - Date.parse(s.seenAt) < FORGET_DELETED_AFTER_MS);
    stored.workspaces[this.key] = { usedAt: new Date(now).toISOString(), subscriptions: kept };
    await writeFileAtomic(file, fitted(stored, this.key));
  }
}
