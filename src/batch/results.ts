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
  /** The RESULT cell when it is neither `ok` nor `FAILED` (`not known`), with its DETAIL. */
  other?: { result: string; detail: string };
}

/** The failure in words, with every field of the error that ndjson has. */
export function errorText(error: ItemError | undefined): string {
  if (error === undefined) return 'failed';
  const head = [error.status === null ? '' : String(error.status), error.code].filter((p) => p !== '').join(' ');
  const request = error.requestId ? ` (request ${error.requestId})` : '';
  return `${head}: ${error.title}${request}`;
}

/** A label cell of the result table: its header, and the width it is padded to at least. */
export interface LabelColumn {
  header: string;
  /**
   * Rows are written one at a time, as items finish, so a row cannot wait for a later, longer
   * id: cells are padded to this (the service's id length), and ids of that length line up.
   */
  minWidth?: number;
}

interface TableRow {
  ok: boolean;
  /** A RESULT of its own (ResultRow.other), shown without colour. */
  result?: string;
  cells: string[];
  detail: string;
}

export class ResultWriter {
  ok = 0;
  failed = 0;
  /** Set when stdout went away: the batch goes on (nothing is lost), results are no longer printed. */
  outputClosedAt: number | undefined;
  private table: Promise<(row: TableRow) => string> | undefined;
  private readonly labels: readonly LabelColumn[];
  constructor(
    private readonly ctx: Session,
    /** How a row reads on a terminal: the item's cells and a description of success. */
    private readonly row: (result: ItemResult) => ResultRow,
    /** The label cells' columns, under a header line (default: one ID column). */
    labels?: readonly (string | LabelColumn)[],
    /** The RESULT column's width at least: the longest result a caller's rows may have. */
    private readonly resultWidth = 6,
  ) {
    this.labels = (labels ?? ['ID']).map((l) => (typeof l === 'string' ? { header: l } : l));
  }

  /**
   * The one table layout (output/table.ts) for rows written one at a time: RESULT, the labels,
   * then DETAIL, which wraps at words under itself at the terminal's width of the moment; ok in
   * green and FAILED in red when stdout has colour. Loaded only for table output.
   */
  private tableOf(): Promise<(row: TableRow) => string> {
    this.table ??= (async () => {
      const [{ TableStream, tableWidth, pad }, { words, wrapWords }] = await Promise.all([
        import('../output/table.js'),
        import('../output/wrap.js'),
      ]);
      const paint = this.ctx.globals.color
        ? await import('chalk').then(({ Chalk }) => {
            const chalk = new Chalk({ level: 1 });
            return (ok: boolean, text: string) => (ok ? chalk.green(text) : chalk.red(text));
          })
        : (_ok: boolean, text: string) => text;
      const stream = new TableStream<TableRow>(
        [
          {
            header: 'RESULT',
            value: (r) => pad(r.result ?? (r.ok ? 'ok' : 'FAILED'), this.resultWidth),
            style: (cell, r) => (r.result === undefined ? paint(r.ok, cell) : cell),
          },
          ...this.labels.map((l, i) => ({ header: l.header, value: (r: TableRow) => pad(r.cells[i] ?? '', l.minWidth ?? 0) })),
          { header: 'DETAIL', value: (r) => r.detail, flex: true, minWidth: 24 },
        ],
        {
          color: false,
          width: () => tableWidth(this.ctx.io),
          wrapLast: (text, width) => wrapWords(words(text), width, ''),
        },
      );
      return (row) => stream.page([row]);
    })();
    return this.table;
  }

  /** One aligned table row (a header line before the first), as it is written. */
  private async tableLine(result: ItemResult): Promise<string> {
    const { label, done, other } = this.row(result);
    const cells = (Array.isArray(label) ? label : [label]).map((c) => sanitize(c));
    if (other !== undefined) return (await this.tableOf())({ ok: result.ok, result: other.result, cells, detail: sanitize(other.detail) });
    const detail = sanitize(result.ok ? done : errorText(result.error));
    return (await this.tableOf())({ ok: result.ok, cells, detail });
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
