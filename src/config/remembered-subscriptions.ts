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
// ones for 30 days after they were last seen, and a file over 256 KiB is read as empty (and
// rewritten). An id the service refuses (`forgetRefused`) is forgotten.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { withLock } from '../core/lock.js';
import { stateFolder } from './state-folder.js';

export const MAX_SUBSCRIPTIONS = 100;
export const MAX_WORKSPACES = 20;
export const FORGET_DELETED_AFTER_MS = 30 * 86_400_000;
const MAX_FILE_BYTES = 256 * 1024;
const FILE_NAME = 'subscriptions.json';
/** A save waits this long for another process's save, then gives up (the memory only helps). */
const LOCK_WAIT_MS = 2000;
/** A save takes milliseconds: a lock older than this was left by a process that died. */
const LOCK_STALE_MS = 30_000;

/** Newest first by when they were seen, at most MAX_SUBSCRIPTIONS. */
const bounded = (subscriptions: readonly RememberedSubscription[]): RememberedSubscription[] =>
  [...subscriptions].sort((a, b) => (a.seenAt < b.seenAt ? 1 : a.seenAt > b.seenAt ? -1 : 0)).slice(0, MAX_SUBSCRIPTIONS);

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

/** Which workspace's memory: the base URL as rfs uses it and the profile (see above). */
export interface WorkspaceKey {
  baseUrl: string;
  profile: string;
}

const keyOf = (k: WorkspaceKey): string => `${k.baseUrl.replace(/\/+$/, '')} ${k.profile}`;

function readStored(file: string): StoredFile {
  const empty: StoredFile = { version: 1, workspaces: {} };
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return empty;
    const parsed = StoredFile.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : empty;
  } catch {
    // Missing or damaged: a memory, not a record; it starts again.
    return empty;
  }
}

/** What one run knows of one workspace's subscriptions, and what it learns; `save()` writes it. */
export class RememberedSubscriptions {
  private readonly byId = new Map<string, RememberedSubscription>();
  private readonly forgotten = new Set<string>();
  private changed = false;

  private constructor(
    private readonly file: string | undefined,
    private readonly key: string,
    private readonly now: () => number,
  ) {}

  /** The memory of `workspace` as the state folder holds it (none without a state folder). */
  static open(env: NodeJS.ProcessEnv, workspace: WorkspaceKey, now: () => number): RememberedSubscriptions {
    const folder = stateFolder(env);
    const file = folder === undefined ? undefined : path.join(folder, FILE_NAME);
    const memory = new RememberedSubscriptions(file, keyOf(workspace), now);
    if (file !== undefined) {
      for (const s of bounded(readStored(file).workspaces[memory.key]?.subscriptions ?? [])) memory.byId.set(s.id, s);
    }
    return memory;
  }

  /** Every remembered subscription, those seen last first. */
  all(): RememberedSubscription[] {
    return [...this.byId.values()].sort((a, b) => (a.seenAt < b.seenAt ? 1 : a.seenAt > b.seenAt ? -1 : 0));
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
      if (s.id === '') continue;
      const url = typeof s.url === 'string' ? s.url : (this.byId.get(s.id)?.url ?? null);
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
      if (id === '' || this.byId.has(id)) continue;
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
   * written meanwhile), within the bounds. Answers false when it could not be written: the
   * memory only helps, so its failure is never the command's.
   */
  async save(): Promise<boolean> {
    if (!this.changed || this.file === undefined) return true;
    const file = this.file;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      await withLock(`${file}.lock`, () => this.merge(file), { waitMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS });
      this.changed = false;
      return true;
    } catch {
      return false;
    }
  }

  /** Reads the file as it is now, merges this run's knowledge in, and writes it: under the lock. */
  private async merge(file: string): Promise<void> {
    const now = this.now();
    const stored = readStored(file);
    const merged = new Map((stored.workspaces[this.key]?.subscriptions ?? []).map((s) => [s.id, s]));
    for (const id of this.forgotten) merged.delete(id);
    for (const s of this.byId.values()) {
      const other = merged.get(s.id);
      merged.set(s.id, other !== undefined && other.seenAt > s.seenAt ? other : s);
    }
    const kept = bounded(
      [...merged.values()].filter((s) => s.deletedSeenAt === undefined || now - Date.parse(s.seenAt) < FORGET_DELETED_AFTER_MS),
    );
    stored.workspaces[this.key] = { usedAt: new Date(now).toISOString(), subscriptions: kept };
    const workspaces = Object.entries(stored.workspaces)
      .sort(([, a], [, b]) => (a.usedAt < b.usedAt ? 1 : a.usedAt > b.usedAt ? -1 : 0))
      .slice(0, MAX_WORKSPACES);
    await writeFileAtomic(file, `${JSON.stringify({ version: 1, workspaces: Object.fromEntries(workspaces) }, null, 1)}\n`);
  }
}
