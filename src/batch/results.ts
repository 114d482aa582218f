// One result line per batch item (file --from, deliveries replay, sync): ndjson for scripts, a
// table row (aligned, ok/FAILED coloured) on a terminal, written as each item finishes, then a summary on stderr that says
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

/** How a result reads as a table row: its cells (under `headers`) and a description of success. */
export interface ResultRow {
  label: string | string[];
  done: string;
}

/** The failure in words, with every field of the error that ndjson has. */
export function errorText(error: ItemError | undefined): string {
  if (error === undefined) return 'failed';
  const head = [error.status === null ? '' : String(error.status), error.code].filter((p) => p !== '').join(' ');
  const request = error.requestId ? ` (request ${error.requestId})` : '';
  return `${head}: ${error.title}${request}`;
}

export class ResultWriter {
  ok = 0;
  failed = 0;
  /** Set when stdout went away: the batch goes on (nothing is lost), results are no longer printed. */
  outputClosedAt: number | undefined;
  /** Cells seen so far: columns keep the widest, so that rows written one by one line up. */
  private widths: number[] = [];
  private headerDone = false;
  private paint: Promise<(ok: boolean, text: string) => string> | undefined;
  constructor(
    private readonly ctx: Session,
    /** How a row reads on a terminal: the item's cells and a description of success. */
    private readonly row: (result: ItemResult) => ResultRow,
    /** Headers of the label cells, for a header line over the table. */
    private readonly headers?: readonly string[],
  ) {}

  /** ok in green, FAILED in red, when stdout has colour; chalk loads only then. */
  private colour(): Promise<(ok: boolean, text: string) => string> {
    this.paint ??= this.ctx.globals.color
      ? import('chalk').then(({ Chalk }) => {
          const chalk = new Chalk({ level: 1 });
          return (ok: boolean, text: string) => (ok ? chalk.green(text) : chalk.red(text));
        })
      : Promise.resolve((_ok: boolean, text: string) => text);
    return this.paint;
  }

  /** One aligned table row (a header line before the first), as it is written. */
  private async tableLine(result: ItemResult): Promise<string> {
    const { displayWidth, pad } = await import('../output/table.js');
    const { label, done } = this.row(result);
    const cells = (Array.isArray(label) ? label : [label]).map((c) => sanitize(c));
    const detail = sanitize(result.ok ? done : errorText(result.error));
    const heads = this.headers ? ['RESULT', ...this.headers, 'DETAIL'] : undefined;
    const all = ['ok', ...cells];
    all.forEach((cell, i) => {
      this.widths[i] = Math.max(this.widths[i] ?? 0, displayWidth(cell), displayWidth(heads?.[i] ?? ''), i === 0 ? 6 : 0);
    });
    const paint = await this.colour();
    const line = (first: string, rest: string[], last: string): string =>
      [first, ...rest.map((c, i) => pad(c, this.widths[i + 1] ?? 0)), last].join('  ').trimEnd();
    const mark = result.ok ? 'ok' : 'FAILED';
    let text = `${line(paint(result.ok, mark) + ' '.repeat((this.widths[0] ?? 6) - mark.length), cells, detail)}\n`;
    if (heads && !this.headerDone)
      text = `${line(pad(heads[0] ?? '', this.widths[0] ?? 0), heads.slice(1, -1), heads.at(-1) ?? '')}\n${text}`;
    this.headerDone = true;
    return text;
  }

  async write(result: ItemResult): Promise<void> {
    if (result.ok) this.ok += 1;
    else this.failed += 1;
    const { io, globals } = this.ctx;
    let text = globals.output === 'table' ? await this.tableLine(result) : `${safeJson(result)}\n`;
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
