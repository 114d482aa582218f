// The state format of --data, GET/PUT /_sandbox/state and --fixtures. The generated recordings
// are not written out: a state holds the seed and count they come from, plus the recordings that
// changed or were created, the subscriptions (with their secrets: the file is mode 0600),
// deliveries and idempotency keys. How a --data file is kept durable: saver.ts and journal.ts.
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { MAX_JSON_DEPTH, bytesNestDeeperThan } from '../shared/json-depth.js';
import { PRIORITIES, RECORDING_STATUSES } from '../shared/schemas.js';
import { RANGES, describeRange, inRange } from './config.js';
import { StateFileError, readStateFile } from './state-file.js';
import { WORKSPACES } from './types.js';
import type { Delivery, Recording, Subscription } from './types.js';

const FORMAT = 'rfs-sandbox-state';

/**
 * A state wraps a filing's body in 6 more levels (changedRecordings[] → recording → filings[] →
 * filing → data → syncMetadata), so a state of filings the API accepted nests this deep at most.
 * A deeper one could not be saved again: JSON.stringify would overflow the stack.
 */
export const MAX_STATE_DEPTH = MAX_JSON_DEPTH + 6;

const Workspace = z.enum(WORKSPACES);
const FilingData = z.object({
  id: z.string(),
  lastSyncedAt: z.string(),
  syncCount: z.int(),
  syncMetadata: z.looseObject({ provider: z.string(), externalId: z.string(), filedAt: z.string() }),
});
export const StoredRecording = z.object({
  id: z.string(),
  workspace: Workspace,
  origin: z.int(),
  contentSeed: z.int(),
  title: z.string(),
  status: z.enum(RECORDING_STATUSES),
  priority: z.enum(PRIORITIES),
  authorIndex: z.int(),
  clientIndex: z.int(),
  matterIndex: z.int(),
  audioDuration: z.int(),
  audioSize: z.int(),
  createdAt: z.number(),
  updatedAt: z.number(),
  lastSyncedAt: z.nullable(z.number()),
  syncCount: z.int(),
  filings: z.nullable(z.array(z.object({ provider: z.string(), externalId: z.string(), data: FilingData }))),
});
export const StoredSubscription = z.object({
  id: z.string(),
  workspace: Workspace,
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string(),
  createdAt: z.number(),
});
export const StoredDelivery = z.object({
  id: z.string(),
  workspace: Workspace,
  subscriptionId: z.string(),
  event: z.string(),
  recordingId: z.string(),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
  body: z.string(),
  attempts: z.int(),
  roundAttempts: z.int(),
  lastAttemptAt: z.nullable(z.number()),
  lastResponseStatus: z.nullable(z.int()),
  lastError: z.nullable(z.string()),
  createdAt: z.number(),
  log: z.array(
    z.object({
      attempt: z.int(),
      at: z.number(),
      url: z.string(),
      address: z.nullable(z.string()),
      requestHeaders: z.record(z.string(), z.string()),
      requestBody: z.string(),
      responseStatus: z.nullable(z.int()),
      error: z.nullable(z.string()),
      durationMs: z.number(),
    }),
  ),
});
/** A finished POST /webhooks, answered again for the same key; `key` is the workspace and the key. */
export const StoredIdempotency = z.object({ key: z.string(), at: z.number(), status: z.int(), body: z.string() });
const StoredState = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  seed: z.string(),
  // As --recordings is checked: a state claiming 50,000,000 would be generated until memory ran out.
  recordings: z.int().check(z.gte(RANGES.recordings.min), z.lte(RANGES.recordings.max, `must be ${describeRange('recordings')}`)),
  changedRecordings: z.array(StoredRecording),
  subscriptions: z.array(StoredSubscription),
  deliveries: z.array(StoredDelivery),
  idempotency: z.array(StoredIdempotency),
});
export type StoredState = z.infer<typeof StoredState>;

export function storedRecording(rec: Recording): StoredState['changedRecordings'][number] {
  const { version: _version, changed: _changed, ...rest } = rec;
  return rest as StoredState['changedRecordings'][number];
}

export function restoredRecording(stored: StoredState['changedRecordings'][number]): Recording {
  return { ...stored, filings: stored.filings as Recording['filings'], version: 0, changed: true };
}

export const restoredSubscription = (s: StoredState['subscriptions'][number]): Subscription => ({ ...s });
export const restoredDelivery = (d: StoredState['deliveries'][number]): Delivery => ({ ...d, log: d.log.map((a) => ({ ...a })) });

export class DataFileError extends Error {}

/** Where a value first fails the schema of a state: `changedRecordings[3].status`, or "" for the whole. */
export type StateCheck = { ok: true; state: StoredState } | { ok: false; path: string; message: string };

/** Checks a value against the state format (GET/PUT /_sandbox/state and --fixtures use it too). */
export function checkState(value: unknown): StateCheck {
  const parsed = StoredState.safeParse(value);
  if (parsed.success) return { ok: true, state: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, path: issuePath(issue?.path ?? []), message: issue?.message ?? 'not a sandbox state' };
}

/** A state as GET /_sandbox/state exports it: the seed only when asked for (`?includeSeed=1`). */
export type ExportedState = Omit<StoredState, 'seed'> & { seed?: string };

/**
 * A state as GET /_sandbox/state exports it by default, without the seed its keys come from,
 * completed with `seed`; anything else (a list, a state with its own seed) as it is.
 */
export function withSeed(value: unknown, seed: string): unknown {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  return isObject && !Object.hasOwn(value, 'seed') ? { ...value, seed } : value;
}

/** A zod issue path as a reader writes it: `changedRecordings[3].status`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** A data file as read: the state and the exact bytes it was read from (a journal names them). */
export interface Snapshot {
  state: StoredState;
  bytes: Buffer;
}

/** The saved state, or null when the file does not exist yet. */
export async function readSnapshot(file: string): Promise<Snapshot | null> {
  let bytes: Buffer;
  try {
    bytes = await readStateFile(file, `the data file ${file}`);
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    if (error.code === 'ENOENT') return null;
    if (error.code !== undefined) throw new DataFileError(error.message);
    const reason = error.message === 'not JSON' ? `the data file ${file} is not valid JSON` : error.message;
    throw new DataFileError(`${reason}; move it away to start fresh`);
  }
  if (bytesNestDeeperThan(bytes, MAX_STATE_DEPTH)) {
    throw new DataFileError(`the data file ${file} is nested more than ${MAX_STATE_DEPTH} levels deep; move it away to start fresh`);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new DataFileError(`the data file ${file} is not valid JSON; move it away to start fresh`);
  }
  const claimed = (value as { recordings?: unknown } | null)?.recordings;
  if (typeof claimed === 'number' && !inRange('recordings', claimed)) {
    throw new DataFileError(
      `the data file ${file} claims ${claimed} recordings; a sandbox holds ${describeRange('recordings')} (as --recordings); move it away to start fresh`,
    );
  }
  const parsed = StoredState.safeParse(value);
  if (!parsed.success) {
    throw new DataFileError(
      `the data file ${file} is not a sandbox state file (${parsed.error.issues[0]?.path.join('.') ?? ''}); move it away to start fresh`,
    );
  }
  return { state: parsed.data, bytes };
}

export { FORMAT as STATE_FORMAT };
