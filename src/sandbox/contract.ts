// The sandbox's answers as it promises them (sandbox.md, "The contract as a file"): the shapes of
// shared/schemas.ts, which the CLI checks servers with and keeps lenient where api.md says
// "not shown", narrowed to the choices the sandbox makes. Objects are closed, fields that are
// always sent are required, times are date-times, ids have their patterns, counts and sizes
// their bounds, lists their maximum length. That each is a narrowing — every answer the sandbox
// can give is one the CLI's schema accepts — is checked by the compiler at the end of this file.
//
// Three things are made from these and nothing else: the types of views.ts and the routes'
// answers (a field built there that is not here, or of another type, does not compile), the
// OpenAPI document (openapi.ts, by zod's JSON Schema output), and the check of a --fixtures
// list of recordings (fixtures.ts), so what is loaded is what can be answered.
import * as z from 'zod/mini';
import '../shared/zod-messages.js';
import type * as Cli from '../shared/schemas.js';
import { DELIVERY_STATUSES, PRIORITIES, RECORDING_STATUSES, WEBHOOK_EVENTS } from '../shared/schemas.js';
import { MAX_BLOCKS } from './content.js';
import { type ApiProblemCode, PROBLEM_BASE, PROBLEM_STATUSES } from './problem.js';

export const ID_PATTERNS = {
  recording: /^rec_[A-Za-z0-9]{1,64}$/,
  webhook: /^wh_[A-Za-z0-9]{1,64}$/,
  delivery: /^dlv_[A-Za-z0-9]{1,64}$/,
  secret: /^whsec_[A-Za-z0-9]{32}$/,
} as const;

const id = (kind: keyof typeof ID_PATTERNS, words: string) => z.string().check(z.regex(ID_PATTERNS[kind], `must look like ${words}`));
export const RecordingId = id('recording', 'rec_ followed by 1 to 64 letters or digits');
export const WebhookId = id('webhook', 'wh_ followed by 1 to 64 letters or digits');
export const DeliveryId = id('delivery', 'dlv_ followed by 1 to 64 letters or digits');

/** The largest whole number JSON and JavaScript agree on. */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const whole = (min: number, max = MAX_SAFE) => z.int().check(z.gte(min), z.lte(max));

/** Every time the sandbox writes: `Date.prototype.toISOString`, UTC with milliseconds. */
export const DateTime = z.iso.datetime();
/** A string the service's other ids and names are made of: never empty. */
const Text = z.string().check(z.minLength(1));
const JsonObject = z.record(z.string(), z.unknown());

export type Person = z.infer<typeof Person>;
export type Reference = z.infer<typeof Reference>;
export const Person = z.strictObject({ id: Text, name: z.string(), email: z.string() });
export const Reference = z.strictObject({ id: Text, name: z.string(), referenceNumber: z.string() });

const blockMeta = {
  id: Text,
  templateName: z.string(),
  templateId: z.string(),
  schemaVersion: whole(0),
  contentRevision: whole(0),
  sortOrder: whole(0),
  createdAt: DateTime,
};
/** A block with its content: contentText and contentStatus, contentJson when asked and available. */
export const ContentBlock = z.strictObject({
  ...blockMeta,
  contentText: z.optional(z.nullable(z.string())),
  contentStatus: z.optional(z.enum(['available', 'unavailable'])),
  contentJson: z.optional(JsonObject),
});
export type ContentBlock = z.infer<typeof ContentBlock>;
const DetailBlock = z.strictObject({
  ...blockMeta,
  contentText: z.nullable(z.string()),
  contentStatus: z.enum(['available', 'unavailable']),
  contentJson: z.optional(JsonObject),
});
export type DetailBlock = z.infer<typeof DetailBlock>;

const blocks = <T extends z.core.$ZodType>(block: T) => z.array(block).check(z.maxLength(MAX_BLOCKS));

const recordingFields = {
  id: RecordingId,
  title: z.string(),
  status: z.enum(RECORDING_STATUSES),
  priority: z.enum(PRIORITIES),
  /** Seconds. */
  audioDuration: whole(0),
  /** Bytes. */
  audioSize: whole(0),
  notes: blocks(ContentBlock),
  documents: blocks(ContentBlock),
  author: Person,
  client: z.nullable(Reference),
  matter: z.nullable(Reference),
  createdAt: DateTime,
  updatedAt: DateTime,
  lastSyncedAt: z.nullable(DateTime),
  syncCount: whole(0),
};
export const RecordingListItem = z.strictObject(recordingFields);
export type RecordingListItem = z.infer<typeof RecordingListItem>;
export const RecordingDetail = z.strictObject({
  ...recordingFields,
  notes: blocks(DetailBlock),
  documents: blocks(DetailBlock),
  transcript: z.string(),
});
export type RecordingDetail = z.infer<typeof RecordingDetail>;

const pageMeta = (max: number) => ({ count: whole(0, max), limit: whole(1, max) });
const pagedMeta = (max: number) =>
  z.strictObject({ ...pageMeta(max), hasMore: z.boolean(), nextCursor: z.nullable(z.string().check(z.minLength(1))) });

export const RecordingList = z.strictObject({ data: z.array(RecordingListItem).check(z.maxLength(100)), meta: pagedMeta(100) });
export const RecordingResponse = z.strictObject({ data: RecordingDetail });
export type RecordingResponse = z.infer<typeof RecordingResponse>;

export const SyncMetadata = z.strictObject({
  provider: Text,
  externalId: Text,
  externalUrl: z.optional(z.string()),
  filedAt: DateTime,
  metadata: z.optional(JsonObject),
});
export const FilingResponse = z.strictObject({
  data: z.strictObject({ id: RecordingId, lastSyncedAt: DateTime, syncCount: whole(1), syncMetadata: SyncMetadata }),
  meta: z.strictObject({ replayed: z.boolean() }),
});
export type FilingResponse = z.infer<typeof FilingResponse>;

const Events = z.array(z.enum(WEBHOOK_EVENTS)).check(z.minLength(1), z.maxLength(WEBHOOK_EVENTS.length));
const subscriptionFields = { id: WebhookId, url: z.url(), events: Events, createdAt: DateTime };
export const WebhookSubscription = z.strictObject(subscriptionFields);
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;
export const WebhookCreateResponse = z.strictObject({
  data: z.strictObject({ ...subscriptionFields, secret: z.string().check(z.regex(ID_PATTERNS.secret)) }),
});
export type WebhookCreateResponse = z.infer<typeof WebhookCreateResponse>;
export const WebhookList = z.strictObject({ data: z.array(WebhookSubscription).check(z.maxLength(50)), meta: pagedMeta(50) });

export const Delivery = z.strictObject({
  id: DeliveryId,
  subscriptionId: WebhookId,
  event: z.enum(WEBHOOK_EVENTS),
  recordingId: RecordingId,
  status: z.enum(DELIVERY_STATUSES),
  attempts: whole(0),
  lastAttemptAt: z.nullable(DateTime),
  lastResponseStatus: z.nullable(whole(100, 599)),
  lastError: z.nullable(z.string()),
  createdAt: DateTime,
});
export type Delivery = z.infer<typeof Delivery>;
export const DeliveryList = z.strictObject({ data: z.array(Delivery).check(z.maxLength(50)), meta: z.strictObject(pageMeta(50)) });
export const ReplayResponse = z.strictObject({ data: Delivery });

/** data of a recording.completed payload (api.md, Events, Payload shape). */
// A delivery's recording: a list item's fields without audio and content, and where to fetch it.
const { audioDuration: _duration, audioSize: _size, notes: _notes, documents: _documents, ...payloadFields } = recordingFields;
export const WebhookPayloadData = z.strictObject({
  ...payloadFields,
  apiUrl: z.string().check(z.startsWith('/api/v1/recordings/')),
});
export type WebhookPayloadData = z.infer<typeof WebhookPayloadData>;
export const WebhookPayload = z.strictObject({ id: DeliveryId, event: z.enum(WEBHOOK_EVENTS), data: WebhookPayloadData });

/** The problem codes answered with this status. */
export function problemCodes(status: number): ApiProblemCode[] {
  return (Object.entries(PROBLEM_STATUSES) as [ApiProblemCode, number][]).filter(([, s]) => s === status).map(([code]) => code);
}

/** A problem answer (RFC 9457) of one status: its codes, and the type URI made of the code. */
export function Problem(status: number) {
  const [first, ...rest] = problemCodes(status);
  if (first === undefined) throw new Error(`no problem code has the status ${status}`);
  const base = PROBLEM_BASE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return z.strictObject({
    type: z.string().check(z.regex(new RegExp(`^${base}/[a-z]+(-[a-z]+)*$`))),
    title: z.string().check(z.minLength(1)),
    status: z.literal(status),
    code: z.enum([first, ...rest]),
    requestId: z.string().check(z.minLength(1)),
  });
}

/** Compiles only when `Strict` is assignable to `Loose`: the sandbox's answer is one the CLI accepts. */
type Narrows<Loose, Strict extends Loose> = [Loose, Strict];
/**
 * Nothing uses this type: it exists to be compiled.
 * @public
 */
export type AnswersTheCliAccepts = [
  Narrows<z.infer<typeof Cli.RecordingList>, z.infer<typeof RecordingList>>,
  Narrows<z.infer<typeof Cli.RecordingResponse>, z.infer<typeof RecordingResponse>>,
  Narrows<Cli.FilingResponse, FilingResponse>,
  Narrows<Cli.WebhookCreateResponse, WebhookCreateResponse>,
  Narrows<z.infer<typeof Cli.WebhookList>, z.infer<typeof WebhookList>>,
  Narrows<z.infer<typeof Cli.DeliveryList>, z.infer<typeof DeliveryList>>,
  Narrows<z.infer<typeof Cli.ReplayResponse>, z.infer<typeof ReplayResponse>>,
  Narrows<Cli.WebhookPayload, z.infer<typeof WebhookPayload>>,
  Narrows<Cli.ProblemDetails, z.infer<ReturnType<typeof Problem>>>,
];
