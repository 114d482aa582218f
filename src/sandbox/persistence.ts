// The state format of --data, GET/PUT /_sandbox/state and --fixtures. The generated recordings
// are not written out: a state holds the seed and count they come from, plus the recordings that
// changed or were created, the subscriptions (with their secrets: the file is mode 0600),
// deliveries and idempotency keys. How a --data file is kept durable: saver.ts and journal.ts.
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import { MAX_JSON_DEPTH, bytesNestDeeperThan } from '../shared/json-depth.js';
import { DELIVERY_STATUSES, PRIORITIES, RECORDING_STATUSES, WEBHOOK_EVENTS } from '../shared/schemas.js';
import { DeliveryId, ID_PATTERNS, RecordingId, WebhookId } from './contract.js';
import { MAX_SUBSCRIPTIONS } from './webhooks-store.js';
import { RANGES, describeRange, inRange } from './config.js';
import { StateFileError, readStateFile } from './state-file.js';
import { WORKSPACES } from './types.js';
import { checkFiling } from '../shared/filing.js';
import type { Delivery, Recording, Subscription } from './types.js';

const FORMAT = 'rfs-sandbox-state';

/**
 * A state wraps a filing's body in 6 more levels (changedRecordings[] → recording → filings[] →
 * filing → data → syncMetadata), so a state of filings the API accepted nests this deep at most.
 * A deeper one could not be saved again: JSON.stringify would overflow the stack.
 */
export const MAX_STATE_DEPTH = MAX_JSON_DEPTH + 6;

const Workspace = z.enum(WORKSPACES);

/**
 * A time in milliseconds since 1970 that an answer can write as ISO 8601: years 0000 to 9999.
 * A time outside them (±1e308) would load and then make every read of it fail.
 */
export const TIME_BOUNDS = { min: -62_167_219_200_000, max: 253_402_300_799_999 } as const;
const TIME_WORDS = 'must be a time from year 0000 to 9999, in milliseconds since 1970';
const Instant = z.number().check(z.gte(TIME_BOUNDS.min, TIME_WORDS), z.lte(TIME_BOUNDS.max, TIME_WORDS));
const Whole = z.int().check(z.nonnegative());
const FilingData = z.object({
  id: z.string(),
  lastSyncedAt: z.string(),
  syncCount: z.int(),
  syncMetadata: z.looseObject({ provider: z.string(), externalId: z.string(), filedAt: z.string() }),
});
const Ref = z.strictObject({ id: z.string(), name: z.string(), referenceNumber: z.string() });
const GivenBlock = z.strictObject({
  id: z.string(),
  templateName: z.string(),
  templateId: z.string(),
  schemaVersion: Whole,
  contentRevision: Whole,
  sortOrder: Whole,
  createdAt: Instant,
  contentText: z.nullable(z.string()),
  contentJson: z.nullable(z.record(z.string(), z.unknown())),
});
/** What a --fixtures list gave (types.ts GivenContent). */
const Given = z.strictObject({
  author: z.optional(z.strictObject({ id: z.string(), name: z.string(), email: z.string() })),
  client: z.optional(z.nullable(Ref)),
  matter: z.optional(z.nullable(Ref)),
  transcript: z.optional(z.string()),
  notes: z.optional(z.array(GivenBlock)),
  documents: z.optional(z.array(GivenBlock)),
});
export const StoredRecording = z.object({
  id: RecordingId,
  workspace: Workspace,
  origin: z.int(),
  contentSeed: z.int(),
  title: z.string(),
  status: z.enum(RECORDING_STATUSES),
  priority: z.enum(PRIORITIES),
  authorIndex: z.int(),
  clientIndex: z.int(),
  matterIndex: z.int(),
  audioDuration: Whole,
  audioSize: Whole,
  createdAt: Instant,
  updatedAt: Instant,
  lastSyncedAt: z.nullable(Instant),
  syncCount: Whole,
  filings: z.nullable(z.array(z.object({ provider: z.string(), externalId: z.string(), data: FilingData }))),
  given: z.optional(Given),
});
export const StoredSubscription = z.object({
  id: WebhookId,
  workspace: Workspace,
  url: z.string().check(z.minLength(1)),
  events: z.array(z.enum(WEBHOOK_EVENTS)).check(z.minLength(1)),
  secret: z.string().check(z.regex(ID_PATTERNS.secret, 'must be whsec_ followed by 32 letters or digits')),
  createdAt: Instant,
});
export const StoredDelivery = z.object({
  id: DeliveryId,
  workspace: Workspace,
  subscriptionId: WebhookId,
  event: z.enum(WEBHOOK_EVENTS),
  recordingId: RecordingId,
  status: z.enum(DELIVERY_STATUSES),
  body: z.string(),
  attempts: Whole,
  roundAttempts: Whole,
  lastAttemptAt: z.nullable(Instant),
  lastResponseStatus: z.nullable(z.int().check(z.gte(100), z.lte(599))),
  lastError: z.nullable(z.string()),
  createdAt: Instant,
  log: z.array(
    z.object({
      attempt: z.int(),
      at: Instant,
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
export const StoredIdempotency = z.object({ key: z.string(), at: Instant, status: z.int(), body: z.string() });

type Issue = { message: string; path: PropertyKey[] };
/** Each id once in its list. */
function uniqueIds(list: readonly { id: string }[], field: string, issues: Issue[]): void {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    if (seen.has(item.id)) issues.push({ message: `the id ${item.id} is given twice`, path: [field, i, 'id'] });
    seen.add(item.id);
  });
}

const StoredState = z
  .object({
    format: z.literal(FORMAT),
    version: z.literal(1),
    seed: z.string(),
    // As --recordings is checked: a state claiming 50,000,000 would be generated until memory ran out.
    recordings: z.int().check(z.gte(RANGES.recordings.min), z.lte(RANGES.recordings.max, `must be ${describeRange('recordings')}`)),
    changedRecordings: z.array(StoredRecording),
    subscriptions: z.array(StoredSubscription),
    deliveries: z.array(StoredDelivery),
    idempotency: z.array(StoredIdempotency),
  })
  .check(
    z.superRefine((state, ctx) => {
      const issues: Issue[] = [];
      uniqueIds(state.changedRecordings, 'changedRecordings', issues);
      uniqueIds(state.subscriptions, 'subscriptions', issues);
      uniqueIds(state.deliveries, 'deliveries', issues);
      // What POST /recordings/:id/filings would refuse is not taken through a state either
      //: the API's own check, field by field, with the path of the field.
      state.changedRecordings.forEach((rec, i) => {
        rec.filings?.forEach((filing, j) => {
          const { provider, externalId, externalUrl, filedAt, metadata } = filing.data.syncMetadata;
          const fields = {
            provider,
            externalId,
            filedAt,
            ...(externalUrl === undefined ? {} : { externalUrl }),
            ...(metadata === undefined ? {} : { metadata }),
          };
          const check = checkFiling(fields, Number.POSITIVE_INFINITY);
          if ('problem' in check)
            issues.push({
              message: check.problem.replace(/^"\w+" /, ''),
              path: ['changedRecordings', i, 'filings', j, 'data', 'syncMetadata', ...(check.field === null ? [] : [check.field])],
            });
        });
      });
      // api.md, Limits: what POST /webhooks refuses past the limit cannot come in through a state.
      const perWorkspace = new Map<string, number>();
      state.subscriptions.forEach((sub, i) => {
        const count = (perWorkspace.get(sub.workspace) ?? 0) + 1;
        perWorkspace.set(sub.workspace, count);
        if (count === MAX_SUBSCRIPTIONS + 1)
          issues.push({
            message: `the workspace ${sub.workspace} has more than ${MAX_SUBSCRIPTIONS} subscriptions`,
            path: ['subscriptions', i],
          });
      });
      for (const issue of issues) ctx.addIssue({ code: 'custom', input: state, ...issue });
    }),
  );
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
  return { ok: false, ...firstIssue(parsed.error) };
}

/** The first thing wrong, where a reader looks for it: an unknown key is named in the path (`[1].colour`). */
export function firstIssue(error: z.core.$ZodError): { path: string; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { path: '', message: 'not of the expected shape' };
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined)
    return { path: issuePath([...issue.path, issue.keys[0]]), message: 'is not a field of this object' };
  return { path: issuePath(issue.path), message: issue.message };
}

/** A state as GET /_sandbox/state exports it: the seed only when asked for (`?includeSeed=1`). */
export type ExportedState = Omit<StoredState, 'seed'> & { seed?: string };

/**
 * A state as GET /_sandbox/state exports it by default, without the seed its keys come from,
 * completed with `seed`; anything else (a list, one recording of --fixtures, a state with its
 * own seed) as it is. A state is what names its format.
 */
export function withSeed(value: unknown, seed: string): unknown {
  const isState = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'format');
  return isState && !Object.hasOwn(value, 'seed') ? { ...value, seed } : value;
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
/**
 * `seed`: the one a state without its seed is taken as made with. GET /_sandbox/state leaves the
 * seed out by default, and sandbox.md says the state is the format of --data: such an export
 * must start a sandbox; its first save writes the seed in.
 */
export async function readSnapshot(file: string, seed: string): Promise<Snapshot | null> {
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
  const parsed = StoredState.safeParse(withSeed(value, seed));
  if (!parsed.success) {
    throw new DataFileError(
      `the data file ${file} is not a sandbox state file (${describeIssue(parsed.error)}); move it away to start fresh`,
    );
  }
  return { state: parsed.data, bytes };
}

function describeIssue(error: z.core.$ZodError): string {
  const { path, message } = firstIssue(error);
  return path === '' ? message : `${path}: ${message}`;
}

export { FORMAT as STATE_FORMAT };
