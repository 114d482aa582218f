// The shapes of api.md, shared by the CLI (to check what a server answers) and the sandbox (to
// check the bodies it is sent; what it answers is typed by src/sandbox/contract.ts, these
// shapes narrowed to its own choices). Objects are loose: the API is in beta, so fields we do
// not know yet pass through to JSON output instead of being dropped or refused.
//
// Written with zod's mini build (src/shared/zod-messages.ts says why): modifiers are functions
// (z.optional(s), z.nullable(s)) and refinements are checks (s.check(z.minLength(1))). The
// first answer of a process is checked by zod's runtime parser, the answers after it by the same
// shapes compiled with z.compile (src/api/contract.ts).
import * as z from 'zod/mini';
import './zod-messages.js';

import { isIsoInstant } from './iso-time.js';
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
 * An ISO 8601 timestamp as the server wrote it, with its zone (or a date alone): kept as a string
 * so JSON output is the server's. A day the month does not have is refused (iso-time.ts).
 */
export const Timestamp = z.string().check(z.refine(isIsoInstant, { message: 'expected an ISO 8601 timestamp' }));

const JsonObject = z.record(z.string(), z.unknown());
/** A count: a whole number, not negative. */
const Count = z.int().check(z.nonnegative());

export const Person = z.looseObject({ id: z.string(), name: z.string(), email: z.string() });
export const Reference = z.looseObject({ id: z.string(), name: z.string(), referenceNumber: z.string() });

export const ContentBlock = z.looseObject({
  id: z.string(),
  templateName: z.string(),
  templateId: z.string(),
  schemaVersion: z.int(),
  contentRevision: z.int(),
  sortOrder: z.int(),
  createdAt: Timestamp,
  contentText: z.optional(z.nullable(z.string())),
  contentStatus: z.optional(z.enum(['available', 'unavailable'])),
  contentJson: z.optional(JsonObject),
});
export type ContentBlock = z.infer<typeof ContentBlock>;

/** Fields of a recording in a list, in its detail and in a webhook's payload alike. */
const recordingPartiesAndTimes = {
  author: Person,
  client: z.nullable(Reference),
  matter: z.nullable(Reference),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  lastSyncedAt: z.nullable(Timestamp),
};

export const RecordingListItem = z.looseObject({
  id: z.string(),
  title: z.string(),
  status: RecordingStatus,
  priority: Priority,
  audioDuration: z.int(),
  audioSize: z.int(),
  notes: z.array(ContentBlock),
  documents: z.array(ContentBlock),
  ...recordingPartiesAndTimes,
  syncCount: Count,
});
export type RecordingListItem = z.infer<typeof RecordingListItem>;

export const ListMeta = z.looseObject({
  count: Count,
  limit: z.int().check(z.positive()),
  hasMore: z.boolean(),
  nextCursor: z.nullable(z.string()),
});
export type ListMeta = z.infer<typeof ListMeta>;

export const RecordingList = z.looseObject({ data: z.array(RecordingListItem), meta: ListMeta });

// The shapes below are built the first time they are used, by z.lazy: a command checks one or
// two of them, and building them all cost about 2 ms of every start-up (bench/README.md).
export const RecordingDetail = z.lazy(() => {
  const withText = z.required(ContentBlock, { contentText: true, contentStatus: true });
  return z.extend(RecordingListItem, { transcript: z.string(), notes: z.array(withText), documents: z.array(withText) });
});
export type RecordingDetail = z.infer<typeof RecordingDetail>;

export const RecordingResponse = z.lazy(() => z.looseObject({ data: RecordingDetail }));

export const SyncMetadata = z.lazy(() =>
  z.looseObject({
    provider: z.string(),
    externalId: z.string(),
    externalUrl: z.optional(z.string()),
    filedAt: Timestamp,
    metadata: z.optional(JsonObject),
  }),
);
export type SyncMetadata = z.infer<typeof SyncMetadata>;

export const FilingRequest = z.lazy(() =>
  z.strictObject({
    provider: z.string().check(z.minLength(1)),
    externalId: z.string().check(z.minLength(1)),
    externalUrl: z.optional(z.string()),
    filedAt: z.optional(Timestamp),
    metadata: z.optional(JsonObject),
  }),
);
export type FilingRequest = z.infer<typeof FilingRequest>;

export const FilingResponse = z.lazy(() =>
  z.looseObject({
    data: z.looseObject({
      id: z.string(),
      lastSyncedAt: Timestamp,
      syncCount: Count,
      syncMetadata: SyncMetadata,
    }),
    meta: z.looseObject({ replayed: z.boolean() }),
  }),
);
export type FilingResponse = z.infer<typeof FilingResponse>;

/** 8 to 255 characters from letters, digits, period, underscore, colon, hyphen (api.md). */
export const IdempotencyKey = z.lazy(() =>
  z.string().check(z.regex(/^[A-Za-z0-9._:-]{8,255}$/, { message: 'an idempotency key is 8 to 255 letters, digits, or . _ : -' })),
);

export const WebhookCreateRequest = z.lazy(() =>
  z.strictObject({
    url: z.string().check(z.minLength(1)),
    events: z.array(z.enum(WEBHOOK_EVENTS)).check(z.minLength(1)),
  }),
);
export type WebhookCreateRequest = z.infer<typeof WebhookCreateRequest>;

// Subscription fields beyond url, events and secret are "not shown" in api.md: a server may
// send more or fewer, so only the documented ones are required.
const subscription = () =>
  z.looseObject({
    id: z.optional(z.string()),
    url: z.string(),
    events: z.array(z.string()),
    createdAt: z.optional(Timestamp),
  });
export const WebhookSubscription = z.lazy(subscription);
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const WebhookCreateResponse = z.lazy(() =>
  z.looseObject({
    data: z.extend(subscription(), { secret: z.string() }),
  }),
);
export type WebhookCreateResponse = z.infer<typeof WebhookCreateResponse>;

/** Paged lists whose shape api.md does not show: every part but the items is optional. */
export const LooseListMeta = z.lazy(() =>
  z.looseObject({
    count: z.optional(Count),
    limit: z.optional(z.int().check(z.positive())),
    hasMore: z.optional(z.boolean()),
    nextCursor: z.optional(z.nullable(z.string())),
  }),
);

export const WebhookList = z.lazy(() =>
  z.looseObject({
    data: z.array(WebhookSubscription),
    meta: z.optional(LooseListMeta),
  }),
);

// Delivery records are "not shown" in api.md beyond an id, a status and a subscription.
export const Delivery = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    status: z.optional(z.string()),
    subscriptionId: z.optional(z.string()),
  }),
);
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryList = z.lazy(() => z.looseObject({ data: z.array(Delivery), meta: z.optional(LooseListMeta) }));
/** Any list of the API as `rfs api --paginate` walks it: items kept as sent, the cursor read. */
export const AnyList = z.lazy(() =>
  z.looseObject({
    data: z.array(z.unknown()),
    meta: z.optional(z.looseObject({ hasMore: z.optional(z.boolean()), nextCursor: z.optional(z.nullable(z.string())) })),
  }),
);

/** The replay answer is "not shown": a delivery under data, or anything at all. */
export const ReplayResponse = z.lazy(() => z.union([z.looseObject({ data: Delivery }), z.unknown()]));

export const ProblemDetails = z.lazy(() =>
  z.looseObject({
    type: z.optional(z.string()),
    title: z.optional(z.string()),
    status: z.optional(z.int()),
    code: z.optional(z.string()),
    requestId: z.optional(z.string()),
  }),
);
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
export const WebhookPayload = z.lazy(() =>
  z.looseObject({
    id: z.string(),
    event: z.string(),
    data: z.looseObject({
      id: z.string(),
      title: z.string(),
      status: z.string(),
      priority: z.string(),
      ...recordingPartiesAndTimes,
      syncCount: z.int(),
      apiUrl: z.string(),
    }),
  }),
);
export type WebhookPayload = z.infer<typeof WebhookPayload>;

export const SIGNATURE_HEADERS = {
  signature: 'x-service-signature',
  timestamp: 'x-service-timestamp',
  event: 'x-service-event',
  delivery: 'x-service-delivery',
} as const;
