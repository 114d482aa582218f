// The answers' shapes are written with zod's mini build (src/shared/schemas.ts); after a
// process's first answer, src/api/contract.ts checks them compiled with z.compile. These pin down
// what that must keep: the shapes really compile (z.compile quietly hands back a shape it cannot
// compile, which would make `--all` slower with nothing failing), the compiled shape decides
// exactly as zod's runtime parser does, and issues read in English as with the full build.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, safeParse } from 'zod/mini';
import { FilingRequest, IdempotencyKey, RecordingList, RecordingResponse } from '../../src/shared/schemas.js';
import { page, recording, replaceAt } from '../helpers/fixtures.js';

describe("the answers' shapes", () => {
  // src/api/contract.ts compiles a shape after its first answer, which builds its z.lazy parts.
  const detail = { data: { ...recording(1), transcript: 'Hello.', notes: [], documents: [] } };
  it.each([
    ['RecordingList', RecordingList, page([recording(1)], null)],
    ['RecordingResponse', RecordingResponse, detail],
  ] as const)('%s compiles with z.compile after one answer, nothing left to the runtime parser', (_name, schema, answer) => {
    expect(safeParse(schema, answer).success).toBe(true);
    expect(() => compile(schema, { strict: true })).not.toThrow();
  });
});

describe('the compiled shape (property)', () => {
  const valid = page(
    [
      recording(1),
      recording(2, {
        notes: [
          {
            id: 'blk_1',
            templateName: 'Note',
            templateId: 'tpl_1',
            schemaVersion: 1,
            contentRevision: 1,
            sortOrder: 0,
            createdAt: '2026-11-20T09:00:00.000Z',
          },
        ],
      }),
    ],
    'c2',
  );
  const compiledList = compile(RecordingList);

  const altered: (string | number)[][] = [
    [],
    ['data'],
    ['meta', 'limit'],
    ['meta', 'nextCursor'],
    ['data', 0, 'status'],
    ['data', 0, 'syncCount'],
    ['data', 1, 'notes', 0, 'sortOrder'],
    ['data', 1, 'notes', 0],
    ['data', 0, 'author'],
    ['data', 0, 'client'],
    ['data', 0, 'createdAt'],
  ];

  it('decides as zod’s runtime parser does, with the same issues', () => {
    fc.assert(
      fc.property(fc.constantFrom(...altered), fc.jsonValue({ maxDepth: 2 }), (path, next) => {
        const value = replaceAt(valid, path, next);
        const runtime = safeParse(RecordingList, value, { reportInput: true });
        const compiled = safeParse(compiledList, value, { reportInput: true });
        expect(compiled.success).toBe(runtime.success);
        if (runtime.success && compiled.success) expect(compiled.data).toEqual(runtime.data);
        else expect(compiled.error?.issues).toEqual(runtime.error?.issues);
      }),
      { numRuns: 400 },
    );
  });
});

describe("zod's messages", () => {
  it('read in English, as with the full build', () => {
    const filing = safeParse(FilingRequest, { provider: '', externalId: 'X' });
    expect(filing.success).toBe(false);
    expect(filing.error?.issues[0]?.message).toBe('Too small: expected string to have >=1 characters');
    const unknownKey = safeParse(FilingRequest, { provider: 'crm', externalId: 'X', extra: 1 });
    expect(unknownKey.error?.issues[0]?.message).toBe('Unrecognized key: "extra"');
    expect(safeParse(IdempotencyKey, 'short').error?.issues[0]?.message).toBe('an idempotency key is 8 to 255 letters, digits, or . _ : -');
  });
});
