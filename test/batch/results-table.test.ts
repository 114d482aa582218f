// The result table of every batch: one layout (output/table.ts) with a header
// line, whatever the command — `sync -o table` printed rows with none, since it names no label
// columns — and DETAIL wrapped at words under itself.
import { describe, expect, it } from 'vitest';
import { ResultWriter } from '../../src/batch/results.js';
import type { Session } from '../../src/core/context.js';
import { bufferIO } from '../helpers/io.js';

function session(columns: number): { session: Session; stdout: () => string } {
  const t = bufferIO({ stdoutIsTTY: true, columns });
  const ui = { redact: (text: string) => text } as unknown as Session['ui'];
  const globals = { output: 'table', color: false } as Session['globals'];
  return { session: { io: t.io, globals, ui } as Session, stdout: t.stdout };
}

describe('the batch result table', () => {
  it('prints a header over the rows of a writer that names no label columns (sync)', async () => {
    const { session: s, stdout } = session(80);
    const writer = new ResultWriter(s, (r) => ({ label: String(r.id), done: `filed as ${String(r.externalId)}` }));
    await writer.write({ id: 'rec_0123456789abcdef', ok: true, externalId: 'CRM-1' });
    await writer.write({
      id: 'rec_fedcba9876543210',
      ok: false,
      error: {
        status: null,
        code: 'COMMAND_FAILED',
        title: 'the command exited 3: could not reach the document management system',
        requestId: null,
      },
    });
    expect(stdout()).toBe(
      [
        'RESULT  ID                    DETAIL',
        'ok      rec_0123456789abcdef  filed as CRM-1',
        'FAILED  rec_fedcba9876543210  COMMAND_FAILED: the command exited 3: could not',
        '                              reach the document management system',
        '',
      ].join('\n'),
    );
  });
});
