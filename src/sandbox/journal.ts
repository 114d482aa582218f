// The journal beside a --data file (`<file>.journal`): what changed since the data file was last
// written whole, one line per flush. Rewriting a state of 35,000 changed recordings (24 MB) took
// 0.9–2.2 s per save here, where appending one line and fdatasync took about 1 ms (bench/RESULTS.md,
// "Durable --data"), so acknowledged changes are appended here and the data file is rewritten
// only now and then (saver.ts, compaction).
//
// Line 1 names the data file it continues: the SHA-256 of that file's bytes. A journal that
// names other bytes is from before the data file was last rewritten (a SIGKILL between the two
// writes of a compaction) and everything in it is already in the data file: it is ignored.
// Every later line is one flush: the recordings, subscriptions, deliveries and idempotency keys
// it changed, each whole, so applying a line twice changes nothing. A flush is one write() of
// one line, so a line cut short can only be the last, unfinished flush: nothing in it was
// acknowledged, and it is dropped. Any other line that does not read is damage: refused.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { bytesNestDeeperThan } from '../shared/json-depth.js';
import {
  DataFileError,
  MAX_STATE_DEPTH,
  StoredDelivery,
  StoredIdempotency,
  StoredRecording,
  StoredSubscription,
  issuePath,
  type StoredState,
} from './persistence.js';

const FORMAT = 'rfs-sandbox-journal';

const Header = z.object({ format: z.literal(FORMAT), version: z.literal(1), base: z.string() });

const Batch = z.object({
  recordings: z.optional(z.array(StoredRecording)),
  subscriptions: z.optional(z.array(StoredSubscription)),
  removedSubscriptions: z.optional(z.array(z.string())),
  deliveries: z.optional(z.array(StoredDelivery)),
  idempotency: z.optional(z.array(StoredIdempotency)),
});
/** One flush: every entity it changed, as it stood when the flush began. */
export type JournalBatch = z.infer<typeof Batch>;

export const journalPath = (dataFile: string): string => `${dataFile}.journal`;

export const digest = (bytes: string | Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The first line of a journal that continues the data file written as `snapshot`. */
export function journalHeader(snapshot: string | Uint8Array): string {
  return `${JSON.stringify({ format: FORMAT, version: 1, base: digest(snapshot) })}\n`;
}

export function batchLine(batch: JournalBatch): string {
  return `${JSON.stringify(batch)}\n`;
}

export const isEmptyBatch = (batch: JournalBatch): boolean =>
  Object.values(batch).every((list: unknown[] | undefined) => list === undefined || list.length === 0);

/**
 * The flushes of the journal that continues the data file read as `snapshot` (null: there is no
 * data file), in order; none when there is no journal or it continues other bytes.
 */
export async function readJournal(dataFile: string, snapshot: Buffer | null): Promise<JournalBatch[]> {
  const file = journalPath(dataFile);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new DataFileError(`cannot read the journal ${file}: ${(error as Error).message}`);
  }
  // What follows the last newline is a flush cut short, never acknowledged: dropped.
  const lines: Buffer[] = [];
  for (let start = 0, end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, end));
  }
  const damaged = (n: number, why: string): DataFileError =>
    new DataFileError(
      `the journal ${file} is damaged at line ${n} (${why}); move it away to start from the data file alone, losing the changes it holds`,
    );
  // A flush wraps a filing's body as deeply as a state does (persistence.ts, MAX_STATE_DEPTH).
  const read = (line: Buffer, n: number): unknown => {
    if (bytesNestDeeperThan(line, MAX_STATE_DEPTH)) throw damaged(n, `nested more than ${MAX_STATE_DEPTH} levels`);
    try {
      return JSON.parse(line.toString('utf8'));
    } catch {
      throw damaged(n, 'not valid JSON');
    }
  };
  if (lines.length === 0) return [];
  const header = Header.safeParse(read(lines[0] as Buffer, 1));
  if (!header.success) throw damaged(1, 'not the header of a sandbox journal');
  if (snapshot === null || header.data.base !== digest(snapshot)) return [];
  return lines.slice(1).map((line, i) => {
    const parsed = Batch.safeParse(read(line, i + 2));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw damaged(i + 2, `${issuePath(issue?.path ?? []) || 'the line'}: ${issue?.message ?? 'not a flush'}`);
    }
    return parsed.data;
  });
}

/** The state with the journal's flushes applied in order: each entity as its last flush left it. */
export function applyJournal(state: StoredState, batches: JournalBatch[]): StoredState {
  if (batches.length === 0) return state;
  const byId = <T extends { id: string }>(items: T[]): Map<string, T> => new Map(items.map((item) => [item.id, item]));
  const recordings = byId(state.changedRecordings);
  const subscriptions = byId(state.subscriptions);
  const deliveries = byId(state.deliveries);
  const idempotency = new Map(state.idempotency.map((entry) => [entry.key, entry]));
  for (const batch of batches) {
    for (const rec of batch.recordings ?? []) recordings.set(rec.id, rec);
    for (const sub of batch.subscriptions ?? []) subscriptions.set(sub.id, sub);
    for (const id of batch.removedSubscriptions ?? []) subscriptions.delete(id);
    // Map order is creation order, which the deliveries list relies on (newest first).
    for (const d of batch.deliveries ?? []) deliveries.set(d.id, d);
    for (const entry of batch.idempotency ?? []) idempotency.set(entry.key, entry);
  }
  return {
    ...state,
    changedRecordings: [...recordings.values()],
    subscriptions: [...subscriptions.values()],
    deliveries: [...deliveries.values()],
    idempotency: [...idempotency.values()],
  };
}
