// One result line per batch item (file --from, deliveries replay, sync): ndjson for scripts, a
// plain row on a terminal, written as each item finishes, then a summary on stderr that says
// exactly what was done and what was not.
import type { Session } from '../core/context.js';
import { ApiError, RfsError } from '../core/errors.js';
import { writeOut } from '../output/list-writer.js';
import { safeJson } from '../output/safe-json.js';
import { sanitize } from '../core/sanitize.js';

export interface ItemError {
  status: number | null;
  code: string;
  title: string;
  requestId: string | null;
}

export interface ItemResult {
  ok: boolean;
  error?: ItemError;
  [field: string]: unknown;
}

export function itemError(error: unknown): ItemError {
  if (error instanceof ApiError) return { status: error.status, code: error.code, title: error.title, requestId: error.requestId };
  if (error instanceof RfsError)
    return { status: null, code: error.name.replace(/Error$/, '').toUpperCase(), title: error.message, requestId: null };
  return { status: null, code: 'INTERNAL_BUG', title: error instanceof Error ? error.message : String(error), requestId: null };
}

export class ResultWriter {
  ok = 0;
  failed = 0;
  /** Set when stdout went away: the batch goes on (nothing is lost), results are no longer printed. */
  outputClosedAt: number | undefined;
  constructor(
    private readonly ctx: Session,
    /** How a row reads on a terminal: a label for the item and a description of success. */
    private readonly row: (result: ItemResult) => { label: string; done: string },
  ) {}

  async write(result: ItemResult): Promise<void> {
    if (result.ok) this.ok += 1;
    else this.failed += 1;
    const { io, globals } = this.ctx;
    let text: string;
    if (globals.output === 'table') {
      const { label, done } = this.row(result);
      const mark = result.ok ? 'ok    ' : 'FAILED';
      const detail = result.ok ? done : `${result.error?.status ?? ''} ${result.error?.code ?? ''}: ${result.error?.title ?? ''}`.trim();
      text = `${mark}  ${sanitize(label)}  ${sanitize(detail)}\n`;
    } else {
      text = `${safeJson(result)}\n`;
    }
    // A failed item's title is server text, or a command's own stderr (sync --exec).
    text = this.ctx.ui.redact(text);
    if (this.outputClosedAt !== undefined) return;
    try {
      await writeOut(io.stdout, text);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EPIPE') throw error;
      this.outputClosedAt = this.ok + this.failed;
    }
  }

  /** A note for the summary when results stopped being printed. */
  closedNote(): string | undefined {
    if (this.outputClosedAt === undefined) return undefined;
    return `stdout was closed after ${this.outputClosedAt - 1} result lines: the rest were processed but not printed`;
  }
}
