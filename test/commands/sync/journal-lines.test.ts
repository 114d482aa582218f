// The journal's lines are read through one zod schema, as every other
// boundary is: a step whose fields are not of their types is a damaged line, skipped with the
// field named, so the command runs again rather than rfs filing what the hand-written check let
// through (an externalUrl that is a number, metadata that is a string, parked that is not a
// boolean: each would have been sent, or believed, on every pass).
import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/sync/journal.js';

const AT = '2026-11-22T10:00:00Z';
const started = JSON.stringify({ step: 'started', id: 'rec_1', attempt: 1, at: AT });

describe('the journal replay', () => {
  it.each([
    ['an externalUrl that is not a string', { externalUrl: 5 }, 'externalUrl'],
    ['metadata that is not an object', { metadata: 'x' }, 'metadata'],
    ['metadata that is an array', { metadata: [1] }, 'metadata'],
  ])('skips a result line with %s, naming the field, and the command runs again', (_what, extra, field) => {
    const result = JSON.stringify({ step: 'result', id: 'rec_1', attempt: 1, at: AT, externalId: 'X', ...extra });
    const { states, problems } = replayJournal(`${started}\n${result}\n`);
    expect(problems).toEqual([{ line: 2, message: `the line is not a journal step (${field}); skipped` }]);
    expect(states.get('rec_1')).toEqual({ attempts: 1 });
  });

  it('skips a failed line whose parked is not a boolean', () => {
    const failed = JSON.stringify({
      step: 'failed',
      id: 'rec_1',
      attempt: 1,
      at: AT,
      failures: 1,
      error: { code: 'COMMAND_FAILED', title: 'exit 3' },
      parked: 'yes',
    });
    const { states, problems } = replayJournal(`${started}\n${failed}\n`);
    expect(problems).toEqual([{ line: 2, message: 'the line is not a journal step (parked); skipped' }]);
    expect(states.get('rec_1')).toEqual({ attempts: 1 });
  });

  it('reads every step rfs writes, unknown fields passing', () => {
    const lines = [
      started,
      JSON.stringify({
        step: 'result',
        id: 'rec_1',
        attempt: 1,
        at: AT,
        externalId: 'X',
        externalUrl: 'https://crm.example/X',
        metadata: { a: 1 },
      }),
      JSON.stringify({ step: 'started', id: 'rec_2', attempt: 2, at: AT, newer: true }),
      JSON.stringify({
        step: 'failed',
        id: 'rec_2',
        attempt: 2,
        at: AT,
        failures: 2,
        error: { code: 'COMMAND_FAILED', title: 'exit 3' },
        parked: true,
      }),
      JSON.stringify({ step: 'started', id: 'rec_3', attempt: 1, at: AT }),
      JSON.stringify({ step: 'filed', id: 'rec_3', externalId: 'Y', syncCount: 1, at: AT }),
      JSON.stringify({ step: 'started', id: 'rec_4', attempt: 1, at: AT }),
      JSON.stringify({ step: 'dropped', id: 'rec_4', reason: '404 NOT_FOUND', at: AT }),
      JSON.stringify({ step: 'renamed', id: 'rec_5' }),
      JSON.stringify({ step: 'started', id: '', attempt: 1, at: AT }),
      '',
    ];
    const { states, problems } = replayJournal(lines.join('\n'));
    expect(problems).toEqual([
      { line: 9, message: 'the line is not a journal step (step); skipped' },
      { line: 10, message: 'the line is not a journal step (id); skipped' },
    ]);
    expect([...states]).toEqual([
      ['rec_1', { attempts: 1, result: { externalId: 'X', externalUrl: 'https://crm.example/X', metadata: { a: 1 } } }],
      [
        'rec_2',
        { attempts: 2, failure: { attempt: 2, at: AT, failures: 2, error: { code: 'COMMAND_FAILED', title: 'exit 3' }, parked: true } },
      ],
    ]);
  });
});
