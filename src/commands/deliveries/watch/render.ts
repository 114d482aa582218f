// The full-screen view of `deliveries watch` as lines of text for a terminal of a given size
// (cli.md, deliveries; issue 27). Pure: the same board, size and line give the same screen,
// which is what the tmux screens of the tests compare. No line is wider than the terminal (it
// would wrap and scroll the view), server text is sanitised, and counts that are lower bounds
// read `50+`.
import { sanitize } from '../../../core/sanitize.js';
import { BOARD_STATUSES, type BoardRow, type BoardState, type Count, SPARK_MINUTES } from './board.js';

export interface ViewSize {
  columns: number;
  rows: number;
}

export interface ViewState {
  board: BoardState;
  /** Index into board.rows. */
  selected: number;
  /** The bottom line: a question, or what the last action did; undefined: the selected subscription. */
  line?: string | undefined;
  intervalMs: number;
}

const SPARKS = '▁▂▃▄▅▆▇█';
const GAP = '  ';
const COUNT_WIDTH: Record<(typeof BOARD_STATUSES)[number], number> = { FAILED: 6, PENDING: 7, SUCCEEDED: 9 };
/** The marker, the three counts and the gaps around them, the error and the sparkline. */
const FIXED = 2 + 3 * GAP.length + 6 + 7 + 9 + GAP.length + GAP.length;

/** `text` cut to `width` characters (the last one an ellipsis when cut). */
export function cut(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 0 ? '' : `${chars.slice(0, width - 1).join('')}…`;
}

function pad(text: string, width: number): string {
  const c = cut(text, width);
  return c + ' '.repeat(Math.max(0, width - [...c].length));
}

function countText(c: Count): string {
  return c.lowerBound ? `${c.n}+` : String(c.n);
}

function spark(values: readonly (number | null)[], max: number): string {
  return values
    .map((v) => {
      if (v === null) return ' ';
      if (v === 0 || max === 0) return SPARKS[0];
      return SPARKS[Math.min(SPARKS.length - 1, Math.ceil((v / max) * (SPARKS.length - 1)))];
    })
    .join('');
}

interface Layout {
  url: number;
  error: number;
  spark: number;
}

function layout(columns: number): Layout {
  const spark = Math.max(10, Math.min(SPARK_MINUTES, columns - FIXED - 30));
  const flex = Math.max(0, columns - FIXED - spark);
  const url = Math.ceil(flex * 0.6);
  return { url, error: flex - url, spark };
}

function rowLine(row: BoardRow, selected: boolean, l: Layout, max: number): string {
  const url = row.url === null ? `(deleted) ${row.subscriptionId}` : sanitize(row.url);
  const counts = BOARD_STATUSES.map((s) => countText(row.counts[s]).padStart(COUNT_WIDTH[s])).join(GAP);
  const error = row.topError === null ? '' : sanitize(row.topError);
  return `${selected ? '> ' : '  '}${pad(url, l.url)}${GAP}${counts}${GAP}${pad(error, l.error)}${GAP}${spark(row.perMinute.slice(-l.spark), max)}`;
}

/** The bottom line when nothing else is said: the selected subscription. */
function selectedLine(row: BoardRow | undefined): string {
  if (row === undefined) return 'no subscriptions yet';
  const url = row.url === null ? 'deleted: its deliveries cannot be replayed' : sanitize(row.url);
  return `${sanitize(row.subscriptionId)}  ${url}`;
}

/** The screen: exactly `size.rows` lines or fewer, none wider than `size.columns`. */
export function renderView(view: ViewState, size: ViewSize): string[] {
  const { columns, rows: height } = size;
  const l = layout(columns);
  const { rows, latest } = view.board;
  const max = Math.max(0, ...rows.flatMap((r) => r.perMinute.slice(-l.spark).map((v) => v ?? 0)));
  const lowerBound = rows.some((r) => BOARD_STATUSES.some((s) => r.counts[s].lowerBound));

  const top = [
    `deliveries watch, every ${view.intervalMs / 1000} s; failures per minute, last ${l.spark} min`,
    '↑/↓ select   r replay FAILED   q quit',
    `  ${pad('URL', l.url)}${GAP}${BOARD_STATUSES.map((s) => s.padStart(COUNT_WIDTH[s])).join(GAP)}${GAP}${pad('LAST ERROR', l.error)}${GAP}${cut('FAILURES/MIN', l.spark)}`,
  ];
  const bottom = [
    ...(lowerBound ? ['50+: a list came back full (50 rows); there are at least that many'] : []),
    view.line ?? selectedLine(rows[view.selected]),
  ];
  // The table first; what is left goes to the latest failures.
  const room = Math.max(1, height - top.length - bottom.length);
  const shown = Math.min(rows.length, room);
  const first = Math.min(Math.max(0, view.selected - shown + 1), Math.max(0, rows.length - shown));
  const table = rows.slice(first, first + shown).map((r, i) => rowLine(r, first + i === view.selected, l, max));
  const failuresRoom = height - top.length - bottom.length - table.length - 2;
  const failures =
    failuresRoom > 0 && latest.length > 0
      ? [
          '',
          'LATEST FAILURES',
          ...latest
            .slice(0, failuresRoom)
            .map((f) => `  ${sanitize(f.id)}  ${sanitize(f.subscriptionId)}  ${f.error === null ? '' : sanitize(f.error)}`),
        ]
      : [];
  const body = [...top, ...table, ...failures];
  const filler = Math.max(0, height - body.length - bottom.length);
  return [...body, ...Array<string>(filler).fill(''), ...bottom].slice(0, height).map((line) => cut(line, columns).trimEnd());
}
