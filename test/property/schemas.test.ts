// The answers' shapes are written with zod's mini build (src/shared/schemas.ts), their objects
// declared with zod's compiled checker. These pin down what that must keep: the compiled
// checker is really the one used, it decides exactly as zod's generic parser does, and issues
// read in English as with the full build.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeParse, type core } from 'zod/mini';
import { FilingRequest, IdempotencyKey, RecordingList, RecordingResponse } from '../../src/shared/schemas.js';
import { page, recording, replaceAt } from '../helpers/fixtures.js';

/** Every schema reachable from `schema`, the lazy ones opened. */
function reachable(schema: core.$ZodType, seen = new Set<core.$ZodType>()): Set<core.$ZodType> {
  if (seen.has(schema)) return seen;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const children: unknown[] = [];
  if (def.type === 'object') children.push(...Object.values(def.shape as Record<string, unknown>));
  if (def.type === 'lazy') children.push((schema._zod as unknown as { innerType: unknown }).innerType);
  for (const key of ['element', 'innerType', 'valueType']) if (def[key] !== undefined) children.push(def[key]);
  if (Array.isArray(def.options)) children.push(...(def.options as unknown[]));
  for (const child of children) reachable(child as core.$ZodType, seen);
  return seen;
}

const objects = (schema: core.$ZodType): core.$ZodType[] => [...reachable(schema)].filter((s) => s._zod.def.type === 'object');

describe("the answers' object shapes", () => {
  it.each([
    ['RecordingList', RecordingList, 6],
    ['RecordingResponse', RecordingResponse, 5],
  ] as const)('%s is checked by zod’s compiled checker throughout', (_name, schema, atLeast) => {
    const found = objects(schema);
    // The list: page, meta, item, author, reference, content block.
    expect(found.length).toBeGreaterThanOrEqual(atLeast);
    for (const object of found) expect(object._zod.traits.has('$ZodObjectJIT')).toBe(true);
  });
});

describe('the compiled checker (property)', () => {
  const valid = page([recording(1), recording(2, { notes: [{ id: 'blk_1', templateName: 'Note', templateId: 'tpl_1', schemaVersion: 1, contentRevision: 1, sortOrder: 0, createdAt: '2026-11-20T09:00:00.000Z' }] })], 'c2');

  const altered: (string | number)[][] = [[], ['data'], ['meta', 'limit'], ['meta', 'nextCursor'], ['data', 0, 'status'], ['data', 0, 'syncCount'], ['data', 1, 'notes', 0, 'sortOrder'], ['data', 1, 'notes', 0], ['data', 0, 'author'], ['data', 0, 'client'], ['data', 0, 'createdAt']];

  it('decides as zod’s generic parser does, with the same issues', () => {
    fc.assert(
      fc.property(fc.constantFrom(...altered), fc.jsonValue({ maxDepth: 2 }), (path, next) => {
        const value = replaceAt(valid, path, next);
        const generic = safeParse(RecordingList, value, { jitless: true, reportInput: true });
        const compiled = safeParse(RecordingList, value, { reportInput: true });
        expect(compiled.success).toBe(generic.success);
        if (generic.success && compiled.success) expect(compiled.data).toEqual(generic.data);
        else expect(compiled.error?.issues).toEqual(generic.error?.issues);
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
