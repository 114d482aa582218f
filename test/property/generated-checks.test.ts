// The checks generated from the zod schemas (scripts/checks.mjs → *.generated.ts) must decide
// every answer as zod's safeParse does: the same verdict, the same output (a copy, its keys in
// the same order, fields the schema does not name passed through), and the same issues (code,
// path, message, expected, values, input) in the same order, so that a ContractError names the
// same path and says the same thing as when zod ran on the page.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeParse, type core } from 'zod/mini';
import * as generatedConfig from '../../src/config/stored-config.generated.js';
import * as configSchemas from '../../src/config/stored-config.js';
import { checkShape } from '../../src/api/contract.js';
import { ContractError } from '../../src/core/errors.js';
import * as generated from '../../src/shared/answer-checks.generated.js';
import type { Check, CheckIssue } from '../../src/shared/check-runtime.js';
import * as schemas from '../../src/shared/schemas.js';
import { page, paths, recording, replaceAt } from '../helpers/fixtures.js';

const block = (extra: Record<string, unknown> = {}) => ({
  id: 'blk_1',
  templateName: 'Summary',
  templateId: 'tpl_1',
  schemaVersion: 2,
  contentRevision: 1,
  sortOrder: 0,
  createdAt: '2026-11-20T09:00:00Z',
  contentText: 'text',
  contentStatus: 'available',
  contentJson: { a: [1, { b: null }] },
  ...extra,
});
const detail = recording(3, {
  transcript: 'Hello.',
  notes: [block()],
  documents: [block({ contentText: null, contentStatus: 'unavailable' })],
  matter: { id: 'mat_1', name: 'Lease', referenceNumber: 'M-9' },
  lastSyncedAt: '2026-11-22',
  syncCount: 2,
});
const subscription = {
  id: 'wh_1',
  url: 'https://example.test/hook',
  events: ['recording.completed'],
  createdAt: '2026-11-20T09:00:00+01:00',
};
const delivery = { id: 'dlv_1', status: 'failed', subscriptionId: 'wh_1' };

/** Each generated check, its zod schema, and answers it accepts with every optional part present. */
const CASES: ReadonlyArray<readonly [name: string, check: Check<unknown>, schema: core.$ZodType, valid: readonly unknown[]]> = [
  [
    'RecordingList',
    generated.RecordingList,
    schemas.RecordingList,
    [page([recording(1, { notes: [block()] }), detail], 'c2'), page([], null)],
  ],
  ['RecordingResponse', generated.RecordingResponse, schemas.RecordingResponse, [{ data: detail }]],
  [
    'FilingResponse',
    generated.FilingResponse,
    schemas.FilingResponse,
    [
      {
        data: {
          id: 'rec_1',
          lastSyncedAt: '2026-11-22T10:00:00Z',
          syncCount: 1,
          syncMetadata: {
            provider: 'dms',
            externalId: 'X-1',
            externalUrl: 'https://dms.test/1',
            filedAt: '2026-11-22T10:00:00Z',
            metadata: { k: 'v' },
          },
        },
        meta: { replayed: false },
      },
    ],
  ],
  [
    'WebhookCreateResponse',
    generated.WebhookCreateResponse,
    schemas.WebhookCreateResponse,
    [{ data: { ...subscription, secret: 'whsec_x' } }],
  ],
  [
    'WebhookList',
    generated.WebhookList,
    schemas.WebhookList,
    [{ data: [subscription], meta: { count: 1, limit: 10, hasMore: true, nextCursor: 'c' } }],
  ],
  [
    'DeliveryList',
    generated.DeliveryList,
    schemas.DeliveryList,
    [{ data: [delivery], meta: { count: 1, limit: 10, hasMore: false, nextCursor: null } }],
  ],
  ['ReplayResponse', generated.ReplayResponse, schemas.ReplayResponse, [{ data: delivery }, { accepted: true }, 'queued']],
  [
    'ProblemDetails',
    generated.ProblemDetails,
    schemas.ProblemDetails,
    [{ type: 'about:blank', title: 'Nope', status: 404, code: 'RESOURCE_NOT_FOUND', requestId: 'req_1' }],
  ],
  ['AnyList', generated.AnyList, schemas.AnyList, [{ data: [1, 'two', { three: 3 }], meta: { hasMore: true, nextCursor: 'c' } }]],
  [
    'StoredConfig',
    generatedConfig.StoredConfig,
    configSchemas.StoredConfig,
    [{ defaultProfile: 'work', profiles: { work: { baseUrl: 'https://x.test', apiKey: 'rfs_live_x', output: 'json' } } }, {}],
  ],
];

/** Every kind of wrong value a field can hold: wrong type, null, bad enum, bad date, bad int, nesting. */
const WRONG: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 60,
  -(2 ** 60),
  '',
  'x',
  'UNKNOWN_STATUS',
  '2025-02-30T10:00:00Z',
  '2026-11-22T10:00:00',
  '2026-11-22T10:00:00Z',
  [],
  ['x'],
  {},
  { nested: { deeper: [[[{}]]] } },
];

function issuesOf(issues: readonly (CheckIssue | core.$ZodIssue)[]) {
  return issues.map((i) => {
    const issue = i as CheckIssue;
    return {
      code: issue.code,
      path: issue.path,
      message: issue.message,
      expected: issue.expected,
      values: issue.values,
      input: issue.input,
    };
  });
}

/** Both verdicts on `value`, which must agree in every respect. */
function expectSame(check: Check<unknown>, schema: core.$ZodType, value: unknown): boolean {
  const ours = check(value);
  const zods = safeParse(schema, value, { reportInput: true });
  expect(ours.success, JSON.stringify(value)).toBe(zods.success);
  if (ours.success && zods.success) {
    expect(ours.data).toStrictEqual(zods.data);
    // Key order too: JSON output prints the checked copy.
    expect(JSON.stringify(ours.data)).toBe(JSON.stringify(zods.data));
    return true;
  }
  if (!ours.success && !zods.success) expect(issuesOf(ours.issues)).toEqual(issuesOf(zods.error.issues));
  return false;
}

/** The ContractError text checkShape gives, or 'ok'. */
function contractMessage(check: Check<unknown>, value: unknown): string {
  try {
    checkShape(check, value);
    return 'ok';
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    return `${error.message} @ ${error.path}`;
  }
}

describe.each(CASES)('%s: the generated check and zod', (name, check, schema, valid) => {
  it('accept every valid answer alike, extra fields passed through in the same place', () => {
    for (const answer of valid) {
      expect(expectSame(check, schema, answer)).toBe(true);
      if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
        const extra = { zExtra: 1, ...answer, aExtra: { deep: [[[[{ x: 1 }]]]] } };
        expect(expectSame(check, schema, extra)).toBe(true);
      }
    }
  });

  it('decide alike with every field missing, and with every wrong value in every field', () => {
    let refused = 0;
    for (const answer of valid) {
      for (const path of paths(answer)) {
        const parent = path.slice(0, -1);
        const last = path[path.length - 1];
        const parentValue = parent.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], answer);
        // Missing: a key removed from its object (an array has no missing element in JSON).
        if (typeof last === 'string' && !Array.isArray(parentValue)) {
          if (!expectSame(check, schema, replaceAt(answer, path, undefined))) refused++;
        }
        for (const wrong of WRONG) if (!expectSame(check, schema, replaceAt(answer, path, wrong))) refused++;
        // An extra field inside every object of the answer passes through.
        const here = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], answer);
        if (here !== null && typeof here === 'object' && !Array.isArray(here)) {
          expectSame(check, schema, replaceAt(answer, path, { ...here, unknownField: ['kept'] }));
        }
      }
    }
    // The probe can fail: most of these answers are refused; but a replay's answer may be
    // anything at all (api.md: not shown), so nothing is refused there.
    if (name === 'ReplayResponse') expect(refused).toBe(0);
    else expect(refused).toBeGreaterThan(10);
  });

  it('give the same ContractError (path and text) as zod on any answer with a field replaced (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.constantFrom(...valid), fc.nat(), json, fc.boolean(), (answer, pick, next, remove) => {
        const all = paths(answer);
        const path = all[pick % all.length] as (string | number)[];
        const value = replaceAt(answer, path, remove && typeof path[path.length - 1] === 'string' ? undefined : next);
        expectSame(check, schema, value);
        const zod = safeParse(schema, value, { reportInput: true });
        if (zod.success) expect(contractMessage(check, value)).toBe('ok');
        else expect(contractMessage(check, value)).toContain(': ');
      }),
      { numRuns: 300 },
    );
  });
});

describe('the contract error', () => {
  it('names the path of the first bad field and counts the rest, as before', () => {
    const answer = page([recording(1), recording(2, { status: 'LOST', syncCount: -1 })], null);
    expect(contractMessage(generated.RecordingList, answer)).toBe(
      'the server\'s answer is not the documented shape: data[1].status: expected one of "DRAFT", "PENDING", "CLAIMED", "REVIEW_PENDING", "COMPLETED", "ARCHIVED", got "LOST" (and 1 more) @ data[1].status',
    );
    const date = page([recording(1, { createdAt: '2025-02-30T10:00:00Z' })], null);
    expect(contractMessage(generated.RecordingList, date)).toBe(
      "the server's answer is not the documented shape: data[0].createdAt: expected an ISO 8601 timestamp @ data[0].createdAt",
    );
    const missing = replaceAt(page([recording(1)], null), ['data', 0, 'author', 'email'], undefined);
    expect(contractMessage(generated.RecordingList, missing)).toBe(
      "the server's answer is not the documented shape: data[0].author.email: missing (expected string) @ data[0].author.email",
    );
  });
});
