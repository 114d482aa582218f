// The full-screen view of `deliveries watch` as lines of text for a terminal of a given size
// (cli.md, deliveries). Pure: the same board, size and line give the same
// screen, which is what the tmux screens of the tests compare. No line is wider than the
// terminal (it would wrap and scroll the view): every width is counted in terminal cells by the
// table's one rule (output/table.ts, string-width), so CJK text and emoji take the two cells
// they take on screen. Server text is sanitised; counts that are lower bounds read `50+`; a URL
// too long for its column keeps what tells two subscriptions apart (cutUrl).
import { sanitize } from '../../../core/sanitize.js';
import { clusters, displayWidth, pad, truncate } from '../../../output/table.js';
import { formatAge } from '../../../output/time.js';
import { words, wrapWords } from '../../../output/wrap.js';
import { countText as boundedCount } from '../bounds.js';
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
  /** The pace watch keeps, as the top line says it: "every 20 s (…)". */
  pace: string;
  /** A filtered result drawn from a full list: what may be missing (bounds.ts). */
  incomplete?: string | undefined;
  /** Full lists of the whole workspace may hide subscriptions rfs has not seen. */
  hidden?: boolean | undefined;
  /** The time of this drawing, for the failures' ages (the one clock); default: the board's poll. */
  now?: number | undefined;
}

const SPARKS = '▁▂▃▄▅▆▇█';
const GAP = '  ';
const COUNT_WIDTH: Record<(typeof BOARD_STATUSES)[number], number> = { FAILED: 6, PENDING: 7, SUCCEEDED: 9 };
/** A row's mark: it started failing (✗) or recovered (✓) while watched. */
const MARKS = { failing: '✗', recovered: '✓' } as const;
/** The selector and the mark, the three counts and the gaps around them, the error and the sparkline. */
const FIXED = 2 + 2 + 3 * GAP.length + 6 + 7 + 9 + GAP.length + GAP.length;
/** The sparkline's cells at least: at 80 columns the URL needs them more. */
const SPARK_MIN = 8;
const ERROR_MIN = 12;
/** A URL's least: at 60 columns the sparkline goes before a URL would get less. */
const URL_MIN = 18;
/** The least of a path's end worth showing after a cut (`/failing`, `/hook`). */
const PATH_MIN = 4;
/** The screen's short word for api/delivery-evidence.ts's hiddenSubscriptionsNotice. */
const HIDDEN_LINE = 'full lists may hide subscriptions rfs has not seen: watch --subscription <id> reaches one';
/** `59m ago`: the age of a latest failure's attempt. */
const AGE_WIDTH = 7;

/**
 * `url` in at most `width` cells, keeping what tells two subscriptions apart (cli.md, watch:
 * host:port and path): first the scheme goes, then the middle of the path
 * (`127.0.0.1:4001…/failing`); where the host does not fit beside the path's last segment, the
 * middle of the host goes too, its port and that segment kept (`127…:4001/failing`); then the
 * host whole and the path's last characters; with no room even for that, the host's start and
 * end (its port).
 */
export function cutUrl(url: string, width: number): string {
  if (displayWidth(url) <= width) return url;
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  if (displayWidth(rest) <= width) return rest;
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  const room = width - displayWidth(host) - 1;
  const segments = segmentTail(path, room);
  if (segments !== '') return `${host}…${segments}`;
  const port = /:\d+$/.exec(host)?.[0] ?? '';
  if (port !== '') {
    // Three cells of the host's name at least, then the ellipsis.
    const end = segmentTail(path, width - displayWidth(port) - 4);
    if (end !== '') return `${truncate(host.slice(0, -port.length), width - displayWidth(port) - displayWidth(end))}${port}${end}`;
  }
  if (path !== '' && room >= PATH_MIN) return `${host}…${tail(path, room)}`;
  return middleCut(host, width);
}

/** The whole last segments of `path` (`/failing`, `/receivers/failing`) in `width` cells; '' when not even one fits. */
function segmentTail(path: string, width: number): string {
  const segments = path.split('/');
  let out = '';
  for (let i = segments.length - 1; i > 0; i--) {
    const next = `/${segments[i]}${out}`;
    if (displayWidth(next) > width) break;
    out = next;
  }
  return out;
}

/** The last cells of `text` that fit in `width`. */
function tail(text: string, width: number): string {
  const points = [...clusters(text)];
  let out = '';
  for (let i = points.length - 1; i >= 0; i--) {
    const next = `${points[i]}${out}`;
    if (displayWidth(next) > width) break;
    out = next;
  }
  return out;
}

function middleCut(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return truncate(text, width);
  const end = tail(text, Math.floor((width - 1) / 2));
  const start = truncate(text, width - displayWidth(end));
  // truncate() ends in its own ellipsis: the one in the middle.
  return `${start}${end}`;
}

function countText(c: Count): string {
  return boundedCount({ count: c.n, countIsLowerBound: c.lowerBound });
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

function urlText(row: BoardRow): string {
  return row.url === null ? `(deleted) ${row.subscriptionId}` : sanitize(row.url);
}

/**
 * The columns' widths. The URLs as wide as they need, within what leaves the error its least
 * (cutUrl does the rest); where that leaves a URL less than URL_MIN (60 columns), the sparkline
 * goes (0: not drawn) and the error has what the URL leaves.
 */
function layout(columns: number, rows: readonly BoardRow[]): Layout {
  const wanted = Math.max(3, ...rows.map((r) => displayWidth(urlText(r))));
  const spark = Math.max(SPARK_MIN, Math.min(SPARK_MINUTES, columns - FIXED - 54));
  const flex = Math.max(0, columns - FIXED - spark);
  const url = Math.max(0, Math.min(Math.max(wanted, Math.ceil(flex * 0.5)), flex - ERROR_MIN));
  if (url >= Math.min(wanted, URL_MIN)) return { url, error: flex - url, spark };
  const wide = Math.max(0, columns - FIXED + GAP.length);
  const narrow = Math.min(wanted, wide, Math.max(URL_MIN, wide - ERROR_MIN));
  return { url: narrow, error: wide - narrow, spark: 0 };
}

function rowLine(row: BoardRow, selected: boolean, l: Layout, max: number): string {
  const url = row.url === null ? truncate(urlText(row), l.url) : cutUrl(urlText(row), l.url);
  const counts = BOARD_STATUSES.map((s) => pad(countText(row.counts[s]), COUNT_WIDTH[s], 'right')).join(GAP);
  const error = row.topError === null ? '' : sanitize(row.topError);
  const mark = row.mark === undefined ? ' ' : MARKS[row.mark.state];
  const line = `${selected ? '>' : ' '} ${mark} ${pad(url, l.url)}${GAP}${counts}${GAP}${pad(truncate(error, l.error), l.error)}`;
  return l.spark === 0 ? line : `${line}${GAP}${spark(row.perMinute.slice(-l.spark), max)}`;
}

/** The bottom line when nothing else is said: the selected subscription. */
function selectedLine(row: BoardRow | undefined): string {
  if (row === undefined) return 'no subscriptions yet';
  const url = row.url === null ? 'deleted: its deliveries cannot be replayed' : sanitize(row.url);
  const mark = row.mark === undefined ? '' : `  (${row.mark.state} at ${row.mark.time.slice(11, 19)})`;
  return `${sanitize(row.subscriptionId)}  ${url}${mark}`;
}

/** The screen: exactly `size.rows` lines or fewer, none wider than `size.columns` cells. */
export function renderView(view: ViewState, size: ViewSize): string[] {
  const { columns, rows: height } = size;
  const { rows, latest } = view.board;
  const l = layout(columns, rows);
  const max = Math.max(0, ...rows.flatMap((r) => r.perMinute.slice(-l.spark).map((v) => v ?? 0)));
  const lowerBound = rows.some((r) => BOARD_STATUSES.some((s) => r.counts[s].lowerBound));
  const marked = rows.some((r) => r.mark !== undefined);

  const top = [
    // The pace wraps at words too (60 columns: two lines), never cut.
    ...wrapWords(words(`deliveries watch, ${view.pace}`), columns, ''),
    `↑/↓ select   r replay FAILED   q quit${l.spark === 0 ? '' : `   failures/min: last ${l.spark} min`}`,
    `    ${pad('URL', l.url)}${GAP}${BOARD_STATUSES.map((s) => pad(s, COUNT_WIDTH[s], 'right')).join(GAP)}${GAP}${pad(l.error >= 'LAST ERROR'.length ? 'LAST ERROR' : 'ERROR', l.error)}${l.spark === 0 ? '' : `${GAP}${truncate('FAIL/MIN', l.spark)}`}`,
  ];
  // What the screen says below the table wraps at words, as every notice does (output/wrap.ts);
  // the selected subscription's line (its id and URL) is cut at the edge instead.
  const said = [
    ...(lowerBound ? ['50+: a list came back full (50 rows); there are at least that many'] : []),
    ...(view.incomplete === undefined ? [] : [sanitize(view.incomplete)]),
    ...(view.hidden === true ? [HIDDEN_LINE] : []),
    ...(marked ? [`${MARKS.failing} started failing, ${MARKS.recovered} recovered, while watched`] : []),
    ...(view.line === undefined ? [] : [view.line]),
  ];
  const bottom = [
    ...said.flatMap((text) => wrapWords(words(text), columns, '')),
    ...(view.line === undefined ? [selectedLine(rows[view.selected])] : []),
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
          // Newest attempt first (board.ts), with its age: when each failed, not where a list put it.
          `${pad('LATEST FAILURES', 26)}  ${pad('AGE', AGE_WIDTH)}  LAST ERROR`,
          ...latest.slice(0, failuresRoom).map((f) => {
            const age = formatAge(f.attemptAt, view.now ?? view.board.at);
            // The error before anything else: at 80 columns it is what must stay in sight (the row above names the subscription).
            return `  ${pad(sanitize(f.id), 24)}  ${pad(age, AGE_WIDTH)}  ${f.error === null ? '' : sanitize(f.error)}`;
          }),
        ]
      : [];
  const body = [...top, ...table, ...failures];
  const filler = Math.max(0, height - body.length - bottom.length);
  return [...body, ...Array<string>(filler).fill(''), ...bottom].slice(0, height).map((line) => truncate(line, columns).trimEnd());
}
