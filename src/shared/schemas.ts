// The shapes of api.md, shared by the CLI (to check what a server answers) and the sandbox
// (to build and validate what it serves). Objects are loose: the API is in beta, so fields we
// do not know yet pass through to JSON output instead of being dropped or refused.
import * as z from 'zod';

import { INCLUDES, PRIORITIES, RECORDING_STATUSES, SYNC_STATES, WEBHOOK_EVENTS } from './vocabulary.js';

export * from './vocabulary.js';

export const RecordingStatus = z.enum(RECORDING_STATUSES);
export const Priority = z.enum(PRIORITIES);
export const SyncState = z.enum(SYNC_STATES);
export const Include = z.enum(INCLUDES);
export type RecordingStatus = z.infer<typeof RecordingStatus>;
export type Priority = z.infer<typeof Priority>;
export type SyncState = z.infer<typeof SyncState>;
export type Include = z.infer<typeof Include>;

/**
 * The common shape of a timestamp (2026-11-22T07:45:21.295Z, or with an offset), every one of
 * which Date.parse accepts: tested first because Date.parse is several times slower, and a
 * page of 100 recordings holds some 600 timestamps (test/property/timestamp.test.ts).
 */
export const ISO_INSTANT = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** An ISO 8601 timestamp as the server wrote it; kept as a string so JSON output is the server's. */
export const Timestamp = z.string().refine((s) => ISO_INSTANT.test(s) || !Number.isNaN(Date.parse(s)), {
  message: 'expected an ISO 8601 timestamp',
});

const JsonObject = z.record(z.string(), z.unknown());

export const Person = z.looseObject({ id: z.string(), name: z.string(), email: z.string() });
export const Reference = z.looseObject({ id: z.string(), name: z.string(), referenceNumber: z.string() });

export const ContentBlock = z.looseObject({
  id: z.string(),
  templateName: z.string(),
  templateId: z.string(),
  schemaVersion: z.number().int(),
  contentRevision: z.number().int(),
  sortOrder: z.number().int(),
  createdAt: Timestamp,
  contentText: z.string().nullable().optional(),
  contentStatus: z.enum(['available', 'unavailable']).optional(),
  contentJson: JsonObject.optional(),
});
export type ContentBlock = z.infer<typeof ContentBlock>;

export const RecordingListItem = z.looseObject({
  id: z.string(),
  title: z.string(),
  status: RecordingStatus,
  priority: Priority,
  audioDuration: z.number().int(),
  audioSize: z.number().int(),
  notes: z.array(ContentBlock),
  documents: z.array(ContentBlock),
  author: Person,
  client: Reference.nullable(),
  matter: Reference.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSyncedAt: Timestamp.nullable(),
  syncCount: z.number().int().nonnegative(),
});
export type RecordingListItem = z.infer<typeof RecordingListItem>;

export const RecordingDetail = RecordingListItem.extend({
  transcript: z.string(),
  notes: z.array(ContentBlock.required({ contentText: true, contentStatus: true })),
  documents: z.array(ContentBlock.required({ contentText: true, contentStatus: true })),
});
export type RecordingDetail = z.infer<typeof RecordingDetail>;

export const ListMeta = z.looseObject({
  count: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});
export type ListMeta = z.infer<typeof ListMeta>;

export const RecordingList = z.looseObject({ data: z.array(RecordingListItem), meta: ListMeta });
export const RecordingResponse = z.looseObject({ data: RecordingDetail });

export const SyncMetadata = z.looseObject({
  provider: z.string(),
  externalId: z.string(),
  externalUrl: z.string().optional(),
  filedAt: Timestamp,
  metadata: JsonObject.optional(),
});
export type SyncMetadata = z.infer<typeof SyncMetadata>;

export const FilingRequest = z.strictObject({
  provider: z.string().min(1),
  externalId: z.string().min(1),
  externalUrl: z.string().optional(),
  filedAt: Timestamp.optional(),
  metadata: JsonObject.optional(),
});
export type FilingRequest = z.infer<typeof FilingRequest>;

export const FilingResponse = z.looseObject({
  data: z.looseObject({
    id: z.string(),
    lastSyncedAt: Timestamp,
    syncCount: z.number().int().nonnegative(),
    syncMetadata: SyncMetadata,
  }),
  meta: z.looseObject({ replayed: z.boolean() }),
});
export type FilingResponse = z.infer<typeof FilingResponse>;

/** 8 to 255 characters from letters, digits, period, underscore, colon, hyphen (api.md). */
export const IdempotencyKey = z.string().regex(/^[A-Za-z0-9._:-]{8,255}$/, {
  message: 'an idempotency key is 8 to 255 letters, digits, or . _ : -',
});

export const WebhookCreateRequest = z.strictObject({
  url: z.string().min(1),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1),
});
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>;

// Subscription fields beyond url, events and secret are "not shown" in api.md: a server may
// send more or fewer, so only the documented ones are required.
export const WebhookSubscription = z.looseObject({
  id: z.string().optional(),
  url: z.string(),
  events: z.array(z.string()),
  createdAt: Timestamp.optional(),
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const WebhookCreateResponse = z.looseObject({
  data: WebhookSubscription.extend({ secret: z.string() }),
});
export type WebhookCreateResponse = z.infer<typeof WebhookCreateResponse>;

/** Paged lists whose shape api.md does not show: every part but the items is optional. */
export const LooseListMeta = z.looseObject({
  count: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().optional(),
  hasMore: z.boolean().optional(),
  nextCursor: z.string().nullable().optional(),
});

export const WebhookList = z.looseObject({
  data: z.array(WebhookSubscription),
  meta: LooseListMeta.optional(),
});

// Delivery records are "not shown" in api.md beyond an id, a status and a subscription.
export const Delivery = z.looseObject({
  id: z.string(),
  status: z.string().optional(),
  subscriptionId: z.string().optional(),
});
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryList = z.looseObject({ data: z.array(Delivery), meta: LooseListMeta.optional() });
/** The replay answer is "not shown": a delivery under data, or anything at all. */
export const ReplayResponse = z.union([z.looseObject({ data: Delivery }), z.unknown()]);

export const ProblemDetails = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().int().optional(),
  code: z.string().optional(),
  requestId: z.string().optional(),
});
export type ProblemDetails = z.infer<typeof ProblemDetails>;

export const ERROR_CODES = {
  INVALID_INPUT: 400,
  INVALID_CURSOR: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 403,
  SUBSCRIPTION_REQUIRED: 403,
  RESOURCE_NOT_FOUND: 404,
  RECORDING_NOT_COMPLETED: 409,
  WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED: 409,
  UNSUPPORTED_CONTENT_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The body of a recording.completed delivery (api.md, Events, Payload shape). */
export const WebhookPayload = z.looseObject({
  id: z.string(),
  event: z.string(),
  data: z.looseObject({
    id: z.string(),
    title: z.string(),
    status: z.string(),
    priority: z.string(),
    author: Person,
    client: Reference.nullable(),
    matter: Reference.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    lastSyncedAt: Timestamp.nullable(),
    syncCount: z.number().int(),
    apiUrl: z.string(),
  }),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

export const SIGNATURE_HEADERS = {
  signature: 'x-service-signature',
  timestamp: 'x-service-timestamp',
  event: 'x-service-event',
  delivery: 'x-service-delivery',
} as const;
