// Properties of the response boundary (src/api/contract.ts): whatever bytes a server answers a
// 2xx with, the client's parse-and-check path gives either a parsed resource that can be
// printed, or a ContractError (exit 7) — never another exception, never a crash later on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkShape, parseJson } from '../../src/api/contract.js';
import { problemFromResponse } from '../../src/api/problem.js';
import { ApiError, ContractError, exitCodeFor } from '../../src/core/errors.js';
import { safeJson } from '../../src/output/safe-json.js';
import { sanitizeDeep } from '../../src/core/sanitize.js';
import {
  DeliveryList,
  FilingResponse,
  RecordingList,
  RecordingResponse,
  ReplayResponse,
  WebhookCreateResponse,
  WebhookList,
} from '../../src/shared/answer-checks.generated.js';
import type { Check } from '../../src/shared/check-runtime.js';
import { page, paths, recording, replaceAt } from '../helpers/fixtures.js';

const block = {
  id: 'blk_1',
  templateName: 'Note',
  templateId: 'tpl_1',
  schemaVersion: 1,
  contentRevision: 2,
  sortOrder: 0,
  createdAt: '2026-11-20T09:00:00.000Z',
  contentText: 'hello',
  contentStatus: 'available',
  contentJson: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'hello' }] }] },
};
const detail = { ...recording(1), notes: [block], documents: [block], transcript: 'Speaker 1: hello' };

/** Each response schema the client checks, with one answer that passes it. */
const SCHEMAS: [string, Check<unknown>, unknown][] = [
  ['RecordingList', RecordingList, page([recording(1), recording(2, { notes: [block] })], 'c2')],
  ['RecordingResponse', RecordingResponse, { data: detail }],
  [
    'FilingResponse',
    FilingResponse,
    {
      data: {
        id: 'rec_1',
        lastSyncedAt: '2026-11-22T10:00:00Z',
        syncCount: 1,
        syncMetadata: { provider: 'crm', externalId: 'X', filedAt: '2026-11-22T10:00:00Z', metadata: { a: [1] } },
      },
      meta: { replayed: false },
    },
  ],
  [
    'WebhookCreateResponse',
    WebhookCreateResponse,
    {
      data: {
        id: 'wh_1',
        url: 'https://h.example.com',
        events: ['recording.completed'],
        secret: 'whsec_x',
        createdAt: '2026-11-22T10:00:00Z',
      },
    },
  ],
  [
    'WebhookList',
    WebhookList,
    { data: [{ id: 'wh_1', url: 'https://h.example.com', events: ['recording.completed'] }], meta: { hasMore: false, nextCursor: null } },
  ],
  ['DeliveryList', DeliveryList, { data: [{ id: 'dlv_1', status: 'FAILED', subscriptionId: 'wh_1' }] }],
  ['ReplayResponse', ReplayResponse, { data: { id: 'dlv_1', status: 'PENDING' } }],
];

type Outcome = { parsed: unknown } | { contract: ContractError };

/** The client's decode (client.ts): bytes → JSON → schema; then what the printers do with it. */
function decode(schema: Check<unknown>, bytes: Buffer): Outcome {
  let parsed: unknown;
  try {
    parsed = checkShape(schema, parseJson(bytes));
  } catch (error) {
    if (error instanceof ContractError) {
      expect(exitCodeFor(error)).toBe(7);
      expect(error.message.length).toBeGreaterThan(0);
      return { contract: error };
    }
    throw error;
  }
  // A parsed resource must also survive being printed, in json and in a table.
  safeJson(parsed, 2);
  sanitizeDeep(parsed);
  return { parsed };
}

describe.each(SCHEMAS)('the %s answer (property)', (_name, schema, valid) => {
  it('parses the valid sample', () => {
    expect(decode(schema, Buffer.from(JSON.stringify(valid)))).toHaveProperty('parsed');
  });

  it('turns any JSON value into a parsed resource or a ContractError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        decode(schema, Buffer.from(JSON.stringify(value) ?? 'null'));
      }),
      { numRuns: 300 },
    );
  });

  it('turns the valid answer with any one field replaced or removed into a parsed resource or a ContractError', () => {
    const all = paths(valid);
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }), (path, next) => {
        const outcome = decode(schema, Buffer.from(JSON.stringify(replaceAt(valid, path, next)) ?? 'null'));
        // The error names where the answer went wrong, as a path a person can read.
        if ('contract' in outcome && outcome.contract.path) expect(outcome.contract.path).toMatch(/^[\w$[\]".\\-]|^\[/);
      }),
      { numRuns: 400 },
    );
  });
});

describe('bytes that are not JSON (property)', () => {
  it('turn into a ContractError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        decode(RecordingList, Buffer.from(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('truncated JSON is a ContractError', () => {
    const text = JSON.stringify(page([recording(1), recording(2)], 'c2'));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: text.length - 1 }), (cut) => {
        expect(decode(RecordingList, Buffer.from(text.slice(0, cut)))).toHaveProperty('contract');
      }),
      { numRuns: 300 },
    );
  });
});

describe('deeply nested answers (property)', () => {
  // A loose object keeps unknown fields (api.md: the API is in beta), so a field nested thousands
  // of levels deep passes the schema untouched; it must not crash the printers afterwards.
  it('are parsed and printable, or refused as a ContractError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), fc.constantFrom('[', '{"a":'), (depth, open) => {
        const close = open === '[' ? ']' : '}';
        const inner = `${open.repeat(depth)}${open === '[' ? '' : '1'}${close.repeat(depth)}`;
        const body = JSON.stringify(page([recording(1)], null)).replace('"title"', `"extra":${inner},"title"`);
        const outcome = decode(RecordingList, Buffer.from(body));
        if (depth <= 100) expect(outcome).toHaveProperty('parsed');
      }),
      { numRuns: 60 },
    );
  });
});

describe('error answers (property)', () => {
  // Any status, any body: an ApiError whose exit code follows the HTTP status alone, with server
  // text cut to a printable length, and a problem object that can be printed with -o json.
  it('become an ApiError ruled by the HTTP status, whatever the body says', () => {
    const body = fc.oneof(
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
      fc
        .record(
          { title: fc.string({ maxLength: 2000 }), status: fc.integer(), code: fc.string({ maxLength: 500 }), requestId: fc.string() },
          { requiredKeys: [] },
        )
        .map((v) => Buffer.from(JSON.stringify(v))),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 999 }), body, (status, bytes) => {
        const error = problemFromResponse({ status, headers: {}, body: bytes });
        expect(error).toBeInstanceOf(ApiError);
        expect(error.status).toBe(status);
        expect(exitCodeFor(error)).toBe(exitCodeFor(problemFromResponse({ status, headers: {}, body: undefined })));
        expect(error.title.length).toBeLessThanOrEqual(300);
        expect(error.code.length).toBeLessThanOrEqual(100);
        safeJson(error.body ?? null);
      }),
      { numRuns: 500 },
    );
  });
});

describe('nesting depth on the bytes', () => {
  // Up to `limit` opening brackets the text is answered by counting them; beyond, by the walk.
  it('counts brackets first, and walks the text when there are more than the limit', async () => {
    const { bytesNestDeeperThan } = await import('../../src/shared/json-depth.js');
    const deeper = (text: string, limit: number): boolean => bytesNestDeeperThan(Buffer.from(text), limit);
    expect(deeper('[[[]]]', 3)).toBe(false);
    expect(deeper('[[[[]]]]', 3)).toBe(true);
    expect(deeper('[{"a":"[[[[[[["},{"b":"{{{{"}]', 3)).toBe(false);
    expect(deeper('[[],[],[],[],[[]]]', 3)).toBe(false);
    expect(deeper('[[],[],[],[],[[[]]]]', 3)).toBe(true);
  });

  it('agrees with the walk over the parsed value, for any JSON value and limit', async () => {
    const { bytesNestDeeperThan, nestedDeeperThan } = await import('../../src/shared/json-depth.js');
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 6 }), (value, limit) => {
        const text = Buffer.from(JSON.stringify(value) ?? 'null');
        expect(bytesNestDeeperThan(text, limit)).toBe(nestedDeeperThan(value, limit));
      }),
      { numRuns: 500 },
    );
  });
});
