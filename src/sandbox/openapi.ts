// GET /api/v1/openapi.json (sandbox.md, "The contract as a file"): the API as the sandbox
// implements it, in OpenAPI 3.1, built by zod's own JSON Schema output from the schemas its
// answers are typed by (contract.ts: closed objects, required fields, enums, date-times, id
// patterns, bounds, maxItems) and the request bodies rfs sends (shared/schemas.ts), so the
// document cannot say other than the code does. The package ships the same document as openapi.json (scripts/openapi.mjs).
// Loaded on the first request for it, not at start.
import * as z from 'zod/mini';
import {
  FilingRequest,
  IdempotencyKey,
  Include,
  RecordingStatus,
  SIGNATURE_HEADERS,
  SyncState,
  Timestamp,
  WebhookCreateRequest,
} from '../shared/schemas.js';
import { DELIVERY_STATUSES } from '../shared/vocabulary.js';
import {
  ContentBlock,
  Delivery,
  DeliveryList,
  FilingResponse,
  ID_PATTERNS,
  Person,
  Problem,
  RecordingDetail,
  RecordingList,
  RecordingListItem,
  RecordingResponse,
  Reference,
  ReplayResponse,
  SyncMetadata,
  WebhookCreateResponse,
  WebhookList,
  WebhookPayload,
  WebhookPayloadData,
  WebhookSubscription,
  problemCodes,
} from './contract.js';
import { EXAMPLES, problemExample } from './openapi-examples.js';

type Json = Record<string, unknown>;

/** Named schemas: each becomes components/schemas/<name>, and every use of it a $ref. */
const PROBLEM_STATUSES = [400, 401, 403, 404, 409, 413, 415, 429, 500] as const;
const COMPONENTS = {
  RecordingList,
  RecordingListItem,
  RecordingResponse,
  RecordingDetail,
  ContentBlock,
  Person,
  Reference,
  FilingRequest,
  FilingResponse,
  SyncMetadata,
  WebhookCreateRequest,
  WebhookCreateResponse,
  WebhookSubscription,
  WebhookList,
  Delivery,
  DeliveryList,
  ReplayResponse,
  WebhookPayload,
  WebhookPayloadData,
  ...Object.fromEntries(PROBLEM_STATUSES.map((status) => [`Problem${status}`, Problem(status)])),
} as const;
type ComponentName = keyof typeof COMPONENTS;
/** Bodies a client sends: described as zod reads them (input), the rest as answers are checked (output). */
const REQUEST_BODIES = new Set<ComponentName>(['FilingRequest', 'WebhookCreateRequest']);

const ref = (name: ComponentName): Json => ({ $ref: `#/components/schemas/${name}` });

const OPTIONS = {
  target: 'draft-2020-12',
  unrepresentable: 'any',
  override: ({ zodSchema, jsonSchema }) => {
    // A refinement (the ISO 8601 check) has no JSON Schema form: say in words what it checks.
    if (zodSchema === Timestamp) jsonSchema.description = 'ISO 8601 timestamp with a time zone (or a date alone)';
  },
} satisfies z.core.ToJSONSchemaParams;

/** JSON Schema 2020-12 of one zod schema, as OpenAPI 3.1 takes it (no $schema of its own). */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { ...OPTIONS, io }) as Json;
  return rest;
}

/** Every named schema, each using the others by $ref. */
function componentSchemas(): Json {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id: name });
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(registry, { ...OPTIONS, io, uri: (id) => `#/components/schemas/${id}` }).schemas as Record<string, Json>;
  const answers = convert('output');
  const bodies = convert('input');
  const out: Json = {};
  for (const name of Object.keys(COMPONENTS) as ComponentName[]) {
    const { $schema: _dialect, $id: _id, ...schema } = (REQUEST_BODIES.has(name) ? bodies : answers)[name] as Json;
    out[name] = schema;
  }
  return out;
}

const PROBLEM_TITLES: Record<(typeof PROBLEM_STATUSES)[number], string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
};

function problemResponses(): Json {
  const out: Json = {};
  for (const status of PROBLEM_STATUSES) {
    const headers: Json = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
    if (status === 429) headers['retry-after'] = { $ref: '#/components/headers/RetryAfter' };
    out[`Problem${status}`] = {
      description: `${PROBLEM_TITLES[status]}: ${problemCodes(status).join(', ')} (problem details, RFC 9457)`,
      headers,
      content: {
        'application/problem+json': { schema: { $ref: `#/components/schemas/Problem${status}` }, example: problemExample(status) },
      },
    };
  }
  return out;
}

const problems = (...statuses: number[]): Json =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Problem${s}` }]));

/**
 * An operation's 400, with what this operation checks said in its description (an OpenAPI 3.1
 * reference may carry its own): the answer itself names no field (api.md, Errors: field-level
 * details are omitted), so the document is where a client learns which of its inputs are checked.
 */
function badRequest(operation: Json): Json {
  const parameters = (operation.parameters ?? []) as Json[];
  const query = parameters.filter((p) => p.in === 'query').map((p) => String(p.name));
  const schema = (operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.[
    'application/json'
  ]?.schema?.$ref;
  const o = {
    body: schema?.split('/').pop(),
    cursor: query.includes('cursor'),
    idempotencyKey: parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
  };
  const checked = [
    ...(query.length > 0
      ? [`a query parameter outside its schema (${query.join(', ')}), given twice, or not one of these`]
      : ['any query parameter (this operation takes none)']),
    ...(o.body === undefined ? [] : [`a body that is not ${o.body} (a field missing, of another type, or unknown)`]),
  ];
  const codes = [
    `INVALID_INPUT: ${checked.join('; ')}`,
    ...(o.cursor === true ? ['INVALID_CURSOR: a cursor that is not meta.nextCursor of this query, or older than an hour'] : []),
    ...(o.idempotencyKey === true ? ['IDEMPOTENCY_KEY_REQUIRED: no Idempotency-Key header, or one outside its pattern'] : []),
  ];
  return {
    $ref: '#/components/responses/Problem400',
    description: `Bad request (problem details, RFC 9457; the answer names no field, as api.md says). ${codes.join('. ')}.`,
  };
}

/** Every operation's 400 says what that operation checks (badRequest); the document says 400 for each. */
function describeBadRequests(paths: Record<string, Record<string, Json>>): Json {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const responses = operation.responses as Json;
      responses['400'] = badRequest(operation);
    }
  }
  return paths;
}

/** Every /api/v1 operation can meet these. */
const COMMON_PROBLEMS = [401, 403, 429, 500];

function json200(description: string, schema: Json, example: unknown, status = '200', links?: Json): Json {
  return {
    [status]: {
      description,
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema, example } },
      ...(links === undefined ? {} : { links }),
    },
  };
}

/**
 * How an answer's ids lead to the next operation (OpenAPI links): what a
 * stateful tester (Schemathesis, RESTler) chains — a created webhook's id to its delete and its
 * deliveries, a recording's id to its detail and its filing, a delivery's id to its replay.
 */
function link(operationId: string, parameters: Record<string, string>, description: string): Json {
  return { operationId, parameters, description };
}
const LINKS = {
  listRecordings: {
    GetRecording: link('getRecording', { id: '$response.body#/data/0/id' }, 'The first recording of the page'),
    FileRecording: link('fileRecording', { id: '$response.body#/data/0/id' }, 'File the first recording of the page'),
  },
  getRecording: { FileRecording: link('fileRecording', { id: '$response.body#/data/id' }, 'File this recording') },
  fileRecording: { GetRecording: link('getRecording', { id: '$response.body#/data/id' }, 'The recording just filed') },
  createWebhook: {
    DeleteWebhook: link('deleteWebhook', { id: '$response.body#/data/id' }, 'Delete the subscription just created'),
    ListItsDeliveries: link('listDeliveries', { subscriptionId: '$response.body#/data/id' }, 'Deliveries of this subscription'),
  },
  listWebhooks: { DeleteWebhook: link('deleteWebhook', { id: '$response.body#/data/0/id' }, 'Delete the first subscription of the page') },
  listDeliveries: { ReplayDelivery: link('replayDelivery', { id: '$response.body#/data/0/id' }, 'Replay the newest delivery listed') },
  replayDelivery: {
    ListSubscriptionDeliveries: link(
      'listDeliveries',
      { subscriptionId: '$response.body#/data/subscriptionId' },
      'Deliveries of the subscription of the delivery replayed',
    ),
  },
} satisfies Record<string, Json>;

function query(name: string, schema: Json, description: string): Json {
  return { name, in: 'query', required: false, schema, description };
}

const limit = (max: number, fallback: number): Json =>
  query('limit', { type: 'integer', minimum: 1, maximum: max, default: fallback }, `Page size, 1 to ${max} (default ${fallback})`);

const pathId = (kind: keyof typeof ID_PATTERNS, description: string): Json => ({
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: ID_PATTERNS[kind].source },
  description,
});

function body(name: ComponentName, example?: unknown): Json {
  return { required: true, content: { 'application/json': { schema: ref(name), ...(example === undefined ? {} : { example }) } } };
}

function paths(): Record<string, Record<string, Json>> {
  const enumOf = (schema: z.core.$ZodType, fallback?: string): Json => ({
    ...jsonSchema(schema, 'output'),
    ...(fallback === undefined ? {} : { default: fallback }),
  });
  return {
    '/recordings': {
      get: {
        operationId: 'listRecordings',
        summary: 'List recordings of the key’s workspace (by default COMPLETED, unsynced)',
        tags: ['recordings'],
        'x-scope': 'read:recordings',
        parameters: [
          query('status', enumOf(RecordingStatus, 'COMPLETED'), 'Recording status'),
          query('syncState', enumOf(SyncState, 'unsynced'), 'Sync state'),
          query('updatedSince', jsonSchema(Timestamp, 'input'), 'Keeps recordings with updatedAt at or after this instant'),
          query('cursor', { type: 'string' }, 'meta.nextCursor of the previous page'),
          query('include', enumOf(Include), 'content adds contentText and contentStatus to blocks; contentJson adds contentJson as well'),
          limit(100, 50),
        ],
        responses: {
          ...json200('A page of recordings', ref('RecordingList'), EXAMPLES.recordingList, '200', LINKS.listRecordings),
          ...problems(400, ...COMMON_PROBLEMS),
        },
      },
    },
    '/recordings/{id}': {
      get: {
        operationId: 'getRecording',
        summary: 'One recording, with its transcript and content',
        tags: ['recordings'],
        'x-scope': 'read:recordings',
        parameters: [pathId('recording', 'Recording id'), query('include', enumOf(Include), 'contentJson adds contentJson to blocks')],
        responses: {
          ...json200('The recording', ref('RecordingResponse'), EXAMPLES.recording, '200', LINKS.getRecording),
          ...problems(400, ...COMMON_PROBLEMS, 404),
        },
      },
    },
    '/recordings/{id}/filings': {
      post: {
        operationId: 'fileRecording',
        summary: 'Mark a COMPLETED recording as filed in an external system (idempotent per provider and externalId)',
        tags: ['recordings'],
        'x-scope': 'write:recordings',
        parameters: [pathId('recording', 'Recording id')],
        requestBody: body('FilingRequest', EXAMPLES.filingRequest),
        responses: {
          ...json200(
            'The filing (meta.replayed: true when it was already recorded)',
            ref('FilingResponse'),
            EXAMPLES.filing,
            '200',
            LINKS.fileRecording,
          ),
          ...problems(400, ...COMMON_PROBLEMS, 404, 409, 413, 415),
        },
      },
    },
    '/webhooks': {
      post: {
        operationId: 'createWebhook',
        summary: 'Create a webhook subscription; a repeated Idempotency-Key returns the original',
        tags: ['webhooks'],
        'x-scope': 'manage:webhooks',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: true,
            schema: jsonSchema(IdempotencyKey, 'input'),
            description: '8 to 255 letters, digits, period, underscore, colon, hyphen',
          },
        ],
        requestBody: body('WebhookCreateRequest', EXAMPLES.webhookRequest),
        responses: {
          ...json200(
            'The subscription, with its secret',
            ref('WebhookCreateResponse'),
            EXAMPLES.webhookCreated,
            '201',
            LINKS.createWebhook,
          ),
          ...problems(400, ...COMMON_PROBLEMS, 409, 413, 415),
        },
      },
      get: {
        operationId: 'listWebhooks',
        summary: 'List webhook subscriptions',
        tags: ['webhooks'],
        'x-scope': 'manage:webhooks',
        parameters: [query('cursor', { type: 'string' }, 'meta.nextCursor of the previous page'), limit(50, 50)],
        responses: {
          ...json200('A page of subscriptions', ref('WebhookList'), EXAMPLES.webhookList, '200', LINKS.listWebhooks),
          ...problems(400, ...COMMON_PROBLEMS),
        },
      },
    },
    '/webhooks/{id}': {
      delete: {
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook subscription',
        tags: ['webhooks'],
        'x-scope': 'manage:webhooks',
        parameters: [pathId('webhook', 'Subscription id')],
        responses: {
          '204': { description: 'Removed; no body', headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } } },
          ...problems(400, ...COMMON_PROBLEMS, 404),
        },
      },
    },
    '/webhooks/deliveries': {
      get: {
        operationId: 'listDeliveries',
        summary: 'Deliveries of webhook events, newest first',
        tags: ['webhooks'],
        'x-scope': 'manage:webhooks',
        parameters: [
          query('status', { type: 'string', enum: [...DELIVERY_STATUSES] }, 'Delivery status'),
          query('subscriptionId', { type: 'string', pattern: ID_PATTERNS.webhook.source }, 'Only this subscription’s deliveries'),
          limit(50, 50),
        ],
        responses: {
          ...json200('Deliveries', ref('DeliveryList'), EXAMPLES.deliveryList, '200', LINKS.listDeliveries),
          ...problems(400, ...COMMON_PROBLEMS),
        },
      },
    },
    '/webhooks/deliveries/{id}/replay': {
      post: {
        operationId: 'replayDelivery',
        summary: 'Attempt a delivery again, with the same delivery id',
        tags: ['webhooks'],
        'x-scope': 'manage:webhooks',
        parameters: [pathId('delivery', 'Delivery id')],
        responses: {
          ...json200('The delivery, PENDING again', ref('ReplayResponse'), EXAMPLES.replay, '202', LINKS.replayDelivery),
          ...problems(400, ...COMMON_PROBLEMS, 404),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApi',
        summary: 'This document',
        tags: ['meta'],
        security: [],
        responses: { ...json200('OpenAPI 3.1 description of the API', { type: 'object' }, { openapi: '3.1.0' }), ...problems(400) },
      },
    },
  };
}

function webhooks(): Json {
  const header = (name: string, pattern: string, description: string): Json => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string', pattern },
    description,
  });
  return {
    'recording.completed': {
      post: {
        operationId: 'recordingCompleted',
        summary: 'Sent to each subscription listening to recording.completed when a recording becomes COMPLETED',
        parameters: [
          header(
            SIGNATURE_HEADERS.signature,
            '^sha256=[0-9a-f]{64}$',
            'sha256=<hex HMAC-SHA256 of timestamp + "." + raw body, keyed with the subscription secret>',
          ),
          header(SIGNATURE_HEADERS.timestamp, '^[0-9]+$', 'Unix time in seconds'),
          header(SIGNATURE_HEADERS.event, '^recording\\.completed$', 'recording.completed'),
          header(SIGNATURE_HEADERS.delivery, ID_PATTERNS.delivery.source, 'Delivery id (the same on every retry and replay)'),
        ],
        requestBody: body('WebhookPayload', EXAMPLES.payload),
        responses: { '2XX': { description: 'Received; any other answer, or none within 10 s, is retried' } },
      },
    },
  };
}

/** The whole document. */
export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Recording Filing Service API',
      version: '1.0.0-beta',
      // The document is part of the package (openapi.json) and shares its licence.
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Recordings, filing of recordings in external systems, and signed webhooks, as `rfs sandbox` implements them. Generated from the schemas rfs checks answers with.',
    },
    servers: [
      {
        url: '{baseUrl}/api/v1',
        variables: {
          baseUrl: { default: 'http://127.0.0.1:4010', description: 'Where the service runs (`rfs sandbox` prints its baseUrl)' },
        },
      },
    ],
    security: [{ apiKey: [] }],
    tags: [
      { name: 'recordings', description: 'Recordings of the key’s workspace, and their filing in external systems' },
      { name: 'webhooks', description: 'Webhook subscriptions, their deliveries, and replays of a delivery' },
      { name: 'meta', description: 'The API described: this document' },
    ],
    paths: describeBadRequests(paths()),
    webhooks: webhooks(),
    components: {
      schemas: componentSchemas(),
      responses: problemResponses(),
      headers: {
        RequestId: { description: 'Identifies the request, for support', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
      },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A workspace API key: Authorization: Bearer service_pk_…' },
      },
    },
  };
}

let cached: string | null = null;

/** The document as served: built once, on the first request for it. */
export function openApiJson(): string {
  cached ??= `${JSON.stringify(openApiDocument(), null, 2)}\n`;
  return cached;
}
