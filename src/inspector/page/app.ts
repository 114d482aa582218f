// The inspector's page: a client of its own JSON API (../server.ts), in plain TypeScript and the
// DOM: one list, one detail and a few buttons need no component library, and the bundle stays a
// few kilobytes with no dependency to keep. Every value from the server goes in as text
// (textContent), never as markup, and through the terminal's escaping rule (core/sanitize.ts):
// bidi controls and characters that show nothing are shown as escapes, as rfs prints them.
// Keyboard use is the web's own: every row holds a button (Tab reaches it, Enter and Space open
// it), the shortcuts (j/k, r, /) never take a key from a control that has focus.
import { sanitize } from '../../core/sanitize.js';
import type { DeliveryDetail, DeliverySummary, Exchange, InspectorInfo } from '../model.js';
import { newestFirst } from '../order.js';

/** The header that carries a delivery's signature (shared/schemas.ts, SIGNATURE_HEADERS; not imported: the bundle stays free of zod). */
const SIGNATURE_HEADER = 'x-service-signature';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

let info: InspectorInfo = {
  kind: 'listen',
  forwardTo: null,
  canReplay: false,
  canResign: false,
  hasRequests: false,
  maxDeliveries: null,
};

/**
 * The rows the list holds at first: the newest that match; "Show more" adds as many again, a
 * filter finds the others. Laying out rows is most of a keystroke's cost (500 rows took over a
 * second on a loaded 2-core machine, bench/RESULTS.md), so the list holds a few screens' worth.
 */
const WINDOW = 50;
/** The rows shown now: WINDOW, more after "Show more"; WINDOW again when a filter changes. */
let windowSize = WINDOW;

/** A delivery of the list: its row built once (again only when it changes), and the text a search looks in. */
interface Row {
  s: DeliverySummary;
  search: string;
  tr: HTMLTableRowElement | undefined;
}
const rows = new Map<string, Row>();
/** Every id, newest first; sorted again only when a delivery is added. */
let sorted: string[] = [];
let unsorted = false;
/** The ids of the rows in the list now, in order (j/k move along it). */
let order: string[] = [];
let selected: string | undefined;
let opened: DeliveryDetail | undefined;
/** Deliveries whose replay is in flight: no second one until it is back (cli.md, Trust). */
const inFlight = new Set<string>();
/** What the last replay got back, shown again when its delivery's detail is drawn anew. */
let lastReplay: { id: string; text: string } | undefined;

/** A one-line text shown as the terminal shows it: controls, bidi and invisible characters escaped. */
const shown = (text: string): string => sanitize(text);
/** A block of text (a body): line breaks kept, the rest escaped as above. */
const block = (text: string): string => sanitize(text, { multiline: true });

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string | null, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = shown(text);
  if (className !== undefined && className !== '') node.className = className;
  return node;
}

/** A scrolling block of text: focusable, so that the keyboard can scroll it too. */
function pre(text: string, id?: string, label?: string): HTMLPreElement {
  const node = document.createElement('pre');
  node.textContent = block(text);
  node.tabIndex = 0;
  if (id !== undefined) node.id = id;
  if (label !== undefined) node.setAttribute('aria-label', label);
  return node;
}

// The one-time code rfs printed after `#` in the address (server.ts, pageUrl): swapped at once
// for this run's cookie (HttpOnly: the page never holds it), after which the code is dead. The
// address bar keeps no copy of it; a reload has the cookie.
/** Whether this tab swapped a code for the cookie: a refusal then means the listener was restarted. */
let swapped = false;
const session: Promise<void> = (async () => {
  const code = location.hash.slice(1);
  if (code === '') return;
  history.replaceState(null, '', location.pathname + location.search);
  const res = await fetch('/api/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  }).catch(() => undefined);
  swapped = res?.ok === true;
})();

/** An answer of the API that is not a success: its status and the server's message. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, init);
  const body = (await res.json()) as { data?: T; error?: string };
  if (!res.ok) throw new ApiError(res.status, body.error ?? `HTTP ${res.status}`);
  return body.data as T;
}

/** Why a re-signed replay was refused for want of this run's cookie (server.ts, /api/session), in the words of what to do. */
const sessionRefused = (): string =>
  swapped
    ? 'replay failed: the listener was restarted since this page was opened, and its cookie is of the earlier run. Open the address rfs webhooks listen printed in its terminal when it started again (kill -USR2 <its pid> prints a fresh one).'
    : 'replay failed: this page has no cookie of this run of the listener: it was opened without the #… code of an address rfs printed, that code was used already, or the listener was restarted since. Open a fresh address: rfs webhooks listen printed one in its terminal, and kill -USR2 <its pid> prints another.';

const two = (n: number): string => String(n).padStart(2, '0');
/** A time of the list, 24-hour local: 02:02:07. */
const time = (iso: string): string => {
  const t = new Date(iso);
  return `${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;
};
/** A time of the detail: the same with its local date, ISO-like (2026-11-29 02:02:07). */
const dateTime = (iso: string): string => {
  const t = new Date(iso);
  return `${t.getFullYear()}-${two(t.getMonth() + 1)}-${two(t.getDate())} ${time(iso)}`;
};
const statusClass = (status: number | null): string => (status === null ? 'bad' : `s${String(status)[0]}`);
const verdictClass = (verdict: string): string =>
  verdict === 'valid' || verdict === 'duplicate' || verdict === 'SUCCEEDED' ? 'valid' : verdict === 'PENDING' ? '' : 'bad';
/** No answer, said as what happened: a refused connection is not a silence. */
const noAnswer = (error: string | null): string => (error !== null && /ECONNREFUSED/.test(error) ? 'connection refused' : 'no answer');
const answerText = (status: number | null, durationMs: number, error: string | null): string =>
  `${status === null ? noAnswer(error) : String(status)} · ${durationMs} ms`;

/** The Target cell: the delivery's own answer, and the latest replay's marked apart (↻). */
function targetCell(s: DeliverySummary): HTMLTableCellElement {
  const td = el('td', undefined, 'target');
  td.dataset.label = 'Target';
  if (s.target === null && s.replay === null) td.textContent = '–';
  if (s.target !== null)
    td.append(el('span', answerText(s.target.status, s.target.durationMs, s.target.error), statusClass(s.target.status)));
  if (s.replay !== null) {
    const mark = el(
      'span',
      `↻ ${answerText(s.replay.status, s.replay.durationMs, s.replay.error)}`,
      `replayed ${statusClass(s.replay.status)}`,
    );
    mark.title = `${s.replay.label}: the latest replay's answer`;
    td.append(mark);
  }
  return td;
}

function filtered(): boolean {
  return (
    $<HTMLSelectElement>('f-verdict').value !== '' ||
    $<HTMLSelectElement>('f-status').value !== '' ||
    $<HTMLInputElement>('f-text').value.trim() !== ''
  );
}

/** What the filters ask for now: a test of a row. */
function matcher(): (row: Row) => boolean {
  const verdict = $<HTMLSelectElement>('f-verdict').value;
  const status = $<HTMLSelectElement>('f-status').value;
  const text = $<HTMLInputElement>('f-text').value.trim().toLowerCase();
  return ({ s, search }) => {
    if (verdict !== '' && s.verdict !== verdict) return false;
    const answered = s.target?.status ?? s.status;
    if (status === 'none' && answered !== null) return false;
    if (status !== '' && status !== 'none' && (answered === null || String(answered)[0] !== status)) return false;
    return text === '' || search.includes(text);
  };
}

/** The text a search looks in: the row's texts as they came and as they are shown (escaped: `\u202e` finds a U+202E), lower-cased once. */
function searchText(s: DeliverySummary): string {
  const texts = [s.deliveryId, s.event, s.recordingId, s.title, s.url, s.verdict, s.id].filter((v): v is string => v !== null);
  return [...texts, ...texts.map(shown).filter((v, i) => v !== texts[i])].join('\n').toLowerCase();
}

/** A new or changed delivery: its row is built again when next shown. */
function put(s: DeliverySummary): void {
  const known = rows.get(s.id);
  if (known === undefined) {
    rows.set(s.id, { s, search: searchText(s), tr: undefined });
    unsorted = true;
  } else {
    // A later attempt (the sandbox) or a changed time moves it in the list (order.ts).
    if (known.s.at !== s.at) unsorted = true;
    known.s = s;
    known.search = searchText(s);
    known.tr = undefined;
  }
  const verdicts = $<HTMLSelectElement>('f-verdict');
  if (![...verdicts.options].some((o) => o.value === s.verdict)) verdicts.append(new Option(s.verdict, s.verdict));
}

/**
 * A cell of a list: its text on one line in a box of its own (app.css cuts a long one with an
 * ellipsis), the whole text kept in the document (read out whole) and, for the texts that may be
 * cut, in a tooltip, escaped as everything shown.
 */
function cell(label: string, text: string, className = '', full?: string): HTMLTableCellElement {
  const td = el('td', undefined, className);
  td.dataset.label = label;
  const value = el('span', text, 'v');
  if (full !== undefined) value.title = shown(full);
  td.append(value);
  return td;
}

/**
 * The URL cell, the whole URL in its tooltip and the detail. The sandbox: its subscription's URL
 * from the host on (`http://` is the same for all; the port and path tell them apart, and are what
 * a cut cell still shows); the listener: the path it arrived at (its origin is the same for every row).
 */
function urlCell(s: DeliverySummary): HTMLTableCellElement {
  if (s.url === null) return cell('URL', '–', 'url');
  let text = s.url;
  try {
    const parsed = new URL(s.url);
    const path = `${parsed.pathname}${parsed.search}`;
    text = info.kind === 'listen' ? path : `${parsed.host}${path}`;
  } catch {
    // Not a URL (the listener cuts a long one): shown as it is.
  }
  return cell('URL', text, 'url', s.url);
}

/** The row whose button has the focus, if one has. */
const focusedRowId = (): string | undefined =>
  document.activeElement instanceof HTMLElement ? document.activeElement.closest<HTMLElement>('#rows tr')?.dataset.id : undefined;

function buildRow(s: DeliverySummary): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.id = s.id;
  if (s.id === selected) tr.setAttribute('aria-current', 'true');
  const open = el('button', time(s.at), 'row-open');
  open.type = 'button';
  // A name of its own for each row: a delivery received twice (duplicate) has two rows.
  const entry = info.kind === 'listen' ? ` (entry ${s.id})` : '';
  open.setAttribute('aria-label', `Open delivery ${shown(s.deliveryId ?? s.id)}${entry}, ${s.verdict}, ${dateTime(s.at)}`);
  open.addEventListener('click', () => {
    select(s.id, false);
    void openDetail(s.id, true);
  });
  const first = el('td', undefined, 'time');
  first.dataset.label = 'Time';
  first.append(open);
  tr.append(
    first,
    cell('Verdict', s.verdict, verdictClass(s.verdict)),
    cell('Status', s.status === null ? '–' : String(s.status), statusClass(s.status)),
    targetCell(s),
    cell('Event', s.event ?? '–', 'event', s.event ?? undefined),
    cell('Delivery', s.deliveryId ?? '–', 'id', s.deliveryId ?? undefined),
    cell('Title', s.title ?? '–', 'title', s.title ?? undefined),
    urlCell(s),
  );
  tr.addEventListener('click', (event) => {
    if (event.target instanceof HTMLButtonElement) return;
    select(s.id, false);
    void openDetail(s.id, false);
  });
  return tr;
}

let frameAsked = false;

/** The list drawn again at the next frame: what arrives in one frame (events, keystrokes) is drawn once. */
function renderSoon(): void {
  if (frameAsked) return;
  frameAsked = true;
  requestAnimationFrame(() => {
    frameAsked = false;
    renderList();
  });
}

/**
 * The list as the filters say: the newest WINDOW rows that match, each built once and kept (a
 * keystroke only picks among them), the list's children changed only where they differ.
 */
function renderList(): void {
  if (unsorted) {
    sorted = [...rows.values()]
      .map((r) => r.s)
      .sort(newestFirst)
      .map((s) => s.id);
    unsorted = false;
    // The server's bound: what it dropped (the oldest) goes from the page too.
    if (info.maxDeliveries !== null && sorted.length > info.maxDeliveries) {
      for (const id of sorted.splice(info.maxDeliveries)) {
        rows.delete(id);
        if (id === selected) selected = undefined;
        if (id === opened?.id) noLongerKept();
      }
    }
  }
  const test = matcher();
  const shownRows: Row[] = [];
  let matched = 0;
  for (const id of sorted) {
    const row = rows.get(id) as Row;
    if (!test(row)) continue;
    matched++;
    if (shownRows.length < windowSize) shownRows.push(row);
  }
  order = shownRows.map((r) => r.s.id);
  const body = $<HTMLTableSectionElement>('rows');
  const trs = shownRows.map((r) => (r.tr ??= buildRow(r.s)));
  const now = [...body.children];
  const changed = trs.flatMap((tr, i) => (now[i] === tr ? [] : [i]));
  // Rows built anew in their places (a delivery changed): each replaced where it is, the rest of
  // the list untouched; otherwise (a filter, a new delivery on top) the list is laid out again.
  if (trs.length === now.length && changed.every((i) => !(trs[i] as HTMLTableRowElement).isConnected)) {
    const focused = focusedRowId();
    for (const i of changed) (now[i] as Element).replaceWith(trs[i] as HTMLTableRowElement);
    if (focused !== undefined && changed.length > 0) rows.get(focused)?.tr?.querySelector('button')?.focus({ preventScroll: true });
  } else {
    const focused = focusedRowId();
    body.replaceChildren(...trs);
    // A redraw (a new delivery arrived) keeps the keyboard where it was.
    if (focused !== undefined) rows.get(focused)?.tr?.querySelector('button')?.focus({ preventScroll: true });
  }
  const all = rows.size;
  const empty = $('empty');
  empty.hidden = matched > 0;
  empty.textContent =
    all === 0 ? 'No deliveries yet.' : filtered() ? 'No delivery matches these filters (Escape in a filter clears it).' : '';
  const counted = all === 0 ? '' : matched === all ? `${all} deliveries` : `${matched} of ${all} deliveries`;
  const showing = shownRows.length;
  $('count').textContent =
    matched > showing ? `${counted}: showing ${showing} of ${matched}, the newest (refine the filter to see others)` : counted;
  const more = $<HTMLButtonElement>('more');
  more.hidden = matched <= showing;
  more.textContent = `Show ${Math.min(WINDOW, matched - showing)} more (${matched - showing} not shown)`;
}

/** Marks a row as the current one; with `focus`, moves the keyboard to its button (j/k). */
function select(id: string | undefined, focus: boolean): void {
  if (selected !== undefined) rows.get(selected)?.tr?.removeAttribute('aria-current');
  selected = id;
  const tr = id === undefined ? undefined : rows.get(id)?.tr;
  if (tr === undefined) return;
  tr.setAttribute('aria-current', 'true');
  if (focus) tr.querySelector('button')?.focus();
  else tr.scrollIntoView({ block: 'nearest' });
}

function headerList(headers: Record<string, string>): HTMLElement {
  const dl = el('dl');
  for (const [name, value] of Object.entries(headers)) dl.append(el('dt', name), el('dd', value));
  return dl;
}

function pretty(body: string): string | null {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return null;
  }
}

/** Lines of `before` and `after` as a unified list: kept, removed (-) and added (+), by their longest common part. */
function diffLines(before: string, after: string): { kind: ' ' | '-' | '+'; text: string }[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Past a few million cells the table is too costly: every line shown as changed.
  if ((a.length + 1) * (b.length + 1) > 4_000_000)
    return [...a.map((text) => ({ kind: '-' as const, text })), ...b.map((text) => ({ kind: '+' as const, text }))];
  const w = b.length + 1;
  const common = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i * w + j] =
        a[i] === b[j]
          ? (common[(i + 1) * w + j + 1] as number) + 1
          : Math.max(common[(i + 1) * w + j] as number, common[i * w + j + 1] as number);
  const out: { kind: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i] as string });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || (common[(i + 1) * w + j] as number) >= (common[i * w + j + 1] as number))) {
      // What went comes before what came in its place, as diff -u shows it.
      out.push({ kind: '-', text: a[i] as string });
      i++;
    } else {
      out.push({ kind: '+', text: b[j] as string });
      j++;
    }
  }
  return out;
}

/** What changed between two bodies, as JSON indented when both are JSON (so a changed value is one line). */
function diffView(before: string, after: string, id?: string): HTMLElement {
  const left = pretty(before) ?? before;
  const right = pretty(after) ?? after;
  const box = document.createElement('pre');
  box.className = 'diff';
  box.tabIndex = 0;
  box.setAttribute('aria-label', 'What changed: lines removed start with -, lines added with +');
  if (id !== undefined) box.id = id;
  const lines = diffLines(left, right);
  if (!lines.some((line) => line.kind !== ' ')) {
    // The same lines (JSON indented alike) from other bytes: a signature of them differs too.
    box.textContent = before === after ? '(no change)' : '(whitespace-only change: the bytes differ, and so does their signature)';
    return box;
  }
  for (const line of lines) {
    const span = el('span', undefined, line.kind === '+' ? 'added' : line.kind === '-' ? 'removed' : 'same');
    span.textContent = `${line.kind} ${block(line.text)}\n`;
    box.append(span);
  }
  return box;
}

/** Why a part is no longer there: the inspector's memory bound (kept-bytes.ts). */
const DROPPED = 'the inspector keeps at most 40 MiB of bodies and answers, and drops the oldest first.';

function exchangeView(e: Exchange, original: string): HTMLElement {
  const box = el('div', undefined, 'exchange');
  box.dataset.label = e.label;
  const r = e.response;
  // An error that already says "no answer …" is not wrapped in another.
  const silent = r.error === null ? 'no answer' : /^no answer/i.test(r.error) ? r.error : `${noAnswer(r.error)} (${r.error})`;
  const head = `${e.label}: ${r.status === null ? silent : `HTTP ${r.status}`} in ${r.durationMs} ms`;
  box.append(el('h4', head, statusClass(r.status)), el('p', `${dateTime(e.at)}${e.url === null ? '' : ` → ${e.url}`}`));
  if (e.request.body !== null && !e.dropped) {
    box.append(el('h5', 'Body sent (edited): what changed'), diffView(original, e.request.body));
  }
  if (Object.keys(r.headers).length > 0) box.append(el('h5', 'Answer headers'), headerList(r.headers));
  if (e.dropped) {
    const cut = el('p', `Bodies dropped${e.request.body === null ? '' : ' (the edited body sent and the answer)'}: ${DROPPED}`, 'hint cut');
    box.append(cut);
  } else if (r.body !== null) {
    box.append(el('h5', `Answer body${r.bodyTruncated ? ' (first 64 KiB)' : ''}`));
    const body = pre(r.body === '' ? '(empty)' : r.body, undefined, `${e.label}: answer body`);
    body.className = 'answer-body';
    box.append(body);
  }
  if (Object.keys(e.request.headers).length > 0) {
    const details = el('details');
    details.append(el('summary', 'Request headers sent'), headerList(e.request.headers));
    box.append(details);
  }
  return box;
}

/** The exchanges of a delivery, after a mark of how many older ones were dropped. */
function exchangeViews(d: DeliveryDetail): HTMLElement[] {
  const views = d.exchanges.map((e) => exchangeView(e, d.request.body));
  if (d.exchangesDropped === 0) return views;
  return [el('p', `${d.exchangesDropped} older exchange(s) dropped: ${DROPPED}`, 'hint cut'), ...views];
}

function sayReplay(id: string, text: string): void {
  lastReplay = { id, text };
  if (opened?.id === id) $('replay-result').textContent = shown(text);
}

/** The replay buttons of the open delivery, off while its replay is in flight (they stay focusable). */
function markBusy(id: string): void {
  if (opened?.id !== id) return;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-replay]')) {
    const off = inFlight.has(id) || !opened.replayable || (button.dataset.resign !== undefined && !opened.resignable);
    button.setAttribute('aria-disabled', String(off));
  }
}

/** One replay of a delivery: none while another of it is in flight, whatever asks (a key, a button). */
async function replay(id: string, resign: boolean, edited?: string): Promise<void> {
  if (inFlight.has(id)) return;
  if (opened?.id === id && (!opened.replayable || (resign && !opened.resignable))) return;
  inFlight.add(id);
  markBusy(id);
  sayReplay(id, edited !== undefined ? 'sending the edited body, re-signed…' : resign ? 'replaying, re-signed…' : 'replaying as sent…');
  try {
    const path = `/api/deliveries/${encodeURIComponent(id)}/${edited === undefined ? 'replay' : 'replay-edited'}`;
    await session;
    const e = await api<Exchange>(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(edited === undefined ? { resign } : { body: edited }),
    });
    sayReplay(
      id,
      `${e.label}: ${e.response.status === null ? `no answer (${e.response.error ?? ''})` : `HTTP ${e.response.status}`} in ${e.response.durationMs} ms`,
    );
  } catch (error) {
    sayReplay(
      id,
      (resign || edited !== undefined) && error instanceof ApiError && error.status === 403
        ? sessionRefused()
        : `replay failed: ${(error as Error).message}`,
    );
  } finally {
    inFlight.delete(id);
    markBusy(id);
  }
  if (opened?.id === id) await refreshDetail(id);
}

async function copyCurl(id: string): Promise<void> {
  const res = await fetch(`/api/deliveries/${encodeURIComponent(id)}/curl`);
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as { error?: string };
    $('replay-result').textContent = shown(`no curl command: ${problem.error ?? `HTTP ${res.status}`}`);
    return;
  }
  const text = await res.text();
  const out = $<HTMLTextAreaElement>('curl');
  out.hidden = false;
  out.value = text;
  out.select();
  try {
    await navigator.clipboard.writeText(text);
    $('replay-result').textContent = 'curl command copied';
  } catch {
    $('replay-result').textContent = 'select the curl command below and copy it';
  }
}

function actionButton(id: string, text: string, onClick: () => void, replaying: boolean): HTMLButtonElement {
  const button = el('button', text);
  button.type = 'button';
  button.id = id;
  if (replaying) button.dataset.replay = '';
  button.addEventListener('click', () => {
    if (button.getAttribute('aria-disabled') === 'true') return;
    onClick();
  });
  return button;
}

/** The characters of a text the terminal shows escaped (core/sanitize.ts), each as U+XXXX with its line and column. */
function hiddenCharacters(text: string): string[] {
  const found: string[] = [];
  let line = 1;
  let column = 1;
  for (const ch of text) {
    if (ch === '\n') {
      line++;
      column = 1;
      continue;
    }
    if (ch !== '\t' && ch !== '\r' && block(ch) !== ch) {
      const code = (ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
      found.push(`U+${code} at line ${line}, column ${column}`);
    }
    column++;
  }
  return found;
}

/** The edit box of a verified delivery: its body, what changed as it is typed, and a send (re-signed) button. */
function editor(d: DeliveryDetail): HTMLElement {
  const box = el('div', undefined, 'editor');
  box.id = 'editor';
  box.hidden = true;
  const label = el('label', 'Body to send (edited)');
  label.htmlFor = 'edit-body';
  const area = document.createElement('textarea');
  area.id = 'edit-body';
  area.value = d.request.body;
  area.rows = 10;
  area.spellcheck = false;
  const changes = el('div');
  changes.id = 'edit-diff';
  // What the box may not show as it is (bidi controls reorder it, others show as nothing): listed
  // with where they are, escaped in What changed, and sent only once the person says so.
  const hidden = el('div', undefined, 'hint');
  hidden.id = 'edit-hidden';
  hidden.setAttribute('role', 'status');
  const confirm = document.createElement('input');
  confirm.type = 'checkbox';
  confirm.id = 'edit-hidden-ok';
  const confirmLabel = el('label', 'Send them as they are');
  confirmLabel.prepend(confirm);
  const notes = el('p', '', 'hint');
  notes.id = 'edit-notes';
  notes.setAttribute('role', 'status');
  let found: string[] = [];
  const update = (): void => {
    changes.replaceChildren(el('h3', 'What changed'), diffView(d.request.body, area.value, 'edit-diff-lines'));
    found = hiddenCharacters(area.value);
    if (found.length === 0) hidden.replaceChildren();
    else
      hidden.replaceChildren(
        el(
          'p',
          `The body holds ${found.length} character(s) that reorder the text or show as nothing, so the box above does not show it as it is (What changed shows them escaped): ${found.slice(0, 20).join('; ')}${found.length > 20 ? '; …' : ''}.`,
        ),
        confirmLabel,
      );
    const problems: string[] = [];
    if (area.value === '') problems.push('The body is empty: it is sent empty.');
    else if (pretty(d.request.body) !== null && pretty(area.value) === null)
      problems.push('The body is not valid JSON (the delivery’s was): it is sent as it is, for an app’s test of that.');
    notes.textContent = problems.join(' ');
  };
  area.addEventListener('input', () => {
    confirm.checked = false;
    update();
  });
  update();
  const send = actionButton(
    'send-edited',
    'Send edited, re-signed',
    () => {
      if (found.length > 0 && !confirm.checked) {
        sayReplay(
          d.id,
          'not sent: the body holds characters the box does not show as they are (listed above); tick “Send them as they are” to send it.',
        );
        return;
      }
      void replay(d.id, true, area.value);
    },
    true,
  );
  const note = el('p', 'The listener signs the edited body with its secret and a fresh timestamp; the page never has the secret.', 'hint');
  box.append(label, area, hidden, notes, changes, send, note);
  return box;
}

/** The open delivery was dropped by the server's bound: the detail says so, and offers nothing more. */
function noLongerKept(): void {
  if (opened === undefined) return;
  const gone = opened;
  opened = undefined;
  const note = el(
    'p',
    `Delivery ${gone.deliveryId ?? gone.id} is no longer kept: the listener keeps the newest ${info.maxDeliveries ?? ''} deliveries and dropped the oldest.`,
    'hint cut',
  );
  note.id = 'not-kept';
  $('detail').replaceChildren(note);
}

async function refreshDetail(id: string): Promise<void> {
  let d: DeliveryDetail;
  try {
    d = await api<DeliveryDetail>(`/api/deliveries/${encodeURIComponent(id)}`);
  } catch {
    // Dropped meanwhile (404): said once the list drops it too.
    if (opened?.id === id && !rows.has(id)) noLongerKept();
    return;
  }
  if (opened?.id !== id) return;
  opened = d;
  // Only what the delivery's change touches is drawn again, in place: the pane keeps its scroll,
  // the focus stays where it was, and an edit in progress (the edit box) is not touched.
  $('facts').replaceWith(factList(d));
  const list = $('exchanges');
  list.replaceChildren(...exchangeViews(d));
  $('exchanges-head').hidden = d.exchanges.length === 0 && d.exchangesDropped === 0;
  markBusy(id);
}

/** What came as the signature of a delivery that did not verify: none, or one kept as its header's name only (listen-source.ts). */
function signatureNote(d: DeliveryDetail): string {
  const name = Object.keys(d.request.headers).find((h) => h.toLowerCase() === SIGNATURE_HEADER);
  return name === undefined
    ? `it came with no ${SIGNATURE_HEADER} header.`
    : `a signature came with it (${name}), but the delivery did not verify (see Why); the signature's value is not kept, only that one came.`;
}

/** The facts of a delivery at the top of its detail (drawn again when the delivery changes). */
function factList(d: DeliveryDetail): HTMLElement {
  const summary = el('dl');
  summary.id = 'facts';
  const facts: [string, string | null][] = [
    ['Delivery', d.deliveryId],
    ['Event', d.event],
    ['Recording', d.recordingId],
    ['Title', d.title],
    ['URL', d.url],
    ['Verdict', d.verdict],
    ['Why', d.explanation],
    ['Answered', d.status === null ? null : String(d.status)],
    // The sandbox's time of a delivery is its latest attempt (sandbox-source.ts).
    [info.kind === 'sandbox' ? 'Last attempt' : 'Arrived', dateTime(d.at)],
  ];
  for (const [name, value] of facts) if (value !== null && value !== '') summary.append(el('dt', name), el('dd', value));
  return summary;
}

/** A narrow screen (app.css): the detail is a view of its own, in place of the list. */
const NARROW = '(max-width: 760px)';
/** The row a detail was opened from, and where the page was scrolled then: Back returns there. */
let cameFrom: { id: string; scrollY: number } | undefined;

/** Back to the list (the Back button, Escape): on a narrow screen the list again, at its scroll; the focus on the row the detail came from. */
function backToList(): void {
  const narrow = matchMedia(NARROW).matches;
  if (narrow) document.querySelector('main')?.classList.remove('open');
  if (cameFrom === undefined) return;
  if (narrow) window.scrollTo(0, cameFrom.scrollY);
  rows.get(cameFrom.id)?.tr?.querySelector('button')?.focus({ preventScroll: narrow });
}

async function openDetail(id: string, focus: boolean): Promise<void> {
  const scrollY = window.scrollY;
  const d = await api<DeliveryDetail>(`/api/deliveries/${encodeURIComponent(id)}`);
  opened = d;
  cameFrom = { id, scrollY };
  // A delivery open: the detail pane takes its width beside the list (app.css, main.open).
  document.querySelector('main')?.classList.add('open');
  const pane = $('detail');
  const actions = el('div', undefined, 'actions');
  if (info.canReplay) {
    actions.append(
      actionButton('replay-as-sent', info.kind === 'sandbox' ? 'Replay (API)' : 'Replay as sent', () => void replay(d.id, false), true),
    );
  }
  if (info.canResign) {
    const resigned = actionButton('replay-resigned', 'Replay re-signed', () => void replay(d.id, true), true);
    resigned.dataset.resign = '';
    actions.append(resigned);
    const edit = actionButton(
      'edit-replay',
      'Edit, then replay',
      () => {
        const box = $('editor');
        box.hidden = !box.hidden;
        edit.setAttribute('aria-expanded', String(!box.hidden));
        if (!box.hidden) $('edit-body').focus();
      },
      true,
    );
    edit.dataset.resign = '';
    edit.setAttribute('aria-expanded', 'false');
    edit.setAttribute('aria-controls', 'editor');
    actions.append(edit);
  }
  // A refused delivery keeps no signature, so no signed command is made of it (cli.md, Trust).
  if (d.verified) actions.append(actionButton('copy-curl', 'Copy as curl', () => void copyCurl(d.id), false));
  const fixture = el('a', 'Download fixture', 'button');
  fixture.id = 'download-fixture';
  fixture.href = `/api/deliveries/${encodeURIComponent(d.id)}/body`;
  fixture.download = '';
  actions.append(fixture);
  const summary = factList(d);
  const note = el('p', lastReplay?.id === id ? lastReplay.text : '');
  note.id = 'replay-result';
  note.setAttribute('role', 'status');
  const heading = el('h2', `${d.request.method} ${d.request.path}`);
  heading.id = 'detail-heading';
  heading.tabIndex = -1;
  const back = el('button', '← Back to list', 'back');
  back.type = 'button';
  back.id = 'back-to-list';
  back.addEventListener('click', backToList);
  const parts: HTMLElement[] = [back, heading, summary, actions];
  const whyNot = !d.verified
    ? `This delivery did not verify (${d.verdict}): ${signatureNote(d)} The listener never replays or signs it, so no curl command is made of it.`
    : info.canReplay && !d.replayable
      ? `Not replayed: ${d.whyNotReplayable ?? 'its body was dropped to keep the inspector within its memory bound'}.`
      : info.canResign && !d.resignable
        ? 'This delivery verified under another secret (an earlier run of this history), not the listener’s now: it is replayed as sent only, never re-signed or edited.'
        : undefined;
  if (whyNot !== undefined) {
    const why = el('p', whyNot);
    why.id = 'not-replayable';
    why.className = 'hint';
    parts.push(why);
  }
  parts.push(note);
  if (info.canResign && d.resignable) parts.push(editor(d));
  const curlBox = el('textarea');
  curlBox.id = 'curl';
  curlBox.hidden = true;
  curlBox.readOnly = true;
  curlBox.rows = 6;
  curlBox.setAttribute('aria-label', 'curl command');
  parts.push(curlBox, el('h3', 'Request headers'), headerList(d.request.headers));
  if (d.request.bodyDropped) {
    parts.push(el('h3', 'Raw body'), el('p', `Dropped (${d.request.bodyBytes} bytes): ${DROPPED}`, 'hint cut'));
  } else {
    parts.push(
      el(
        'h3',
        d.request.bodyTruncated
          ? `Raw body (first ${d.request.body.length} of ${d.request.bodyBytes} bytes: a refused body is cut)`
          : 'Raw body',
      ),
      pre(d.request.body, 'raw-body', 'Raw body'),
    );
  }
  const json = pretty(d.request.body);
  if (json !== null) parts.push(el('h3', 'Body as JSON'), pre(json, 'pretty-body', 'Body as JSON'));
  const head = el('h3', info.kind === 'sandbox' ? 'Attempts' : 'Forward target and replays');
  head.id = 'exchanges-head';
  head.hidden = d.exchanges.length === 0 && d.exchangesDropped === 0;
  const list = el('div');
  list.id = 'exchanges';
  list.append(...exchangeViews(d));
  parts.push(head, list);
  pane.replaceChildren(...parts);
  markBusy(d.id);
  // Opened by the person at the page: the keyboard goes there, and a narrow screen scrolls to it.
  if (focus) heading.focus();
}

/** The request log's newest seq on the page: only what came after it is asked for and added. */
let requestsSeen = 0;

async function loadRequests(): Promise<void> {
  const list = await api<
    { seq: number; time: string; method: string; path: string; status: number | null; key: string | null; requestId: string }[]
  >(`/api/requests?since=${requestsSeen}`);
  const fresh = list.filter((r) => r.seq > requestsSeen);
  if (fresh.length === 0) return;
  requestsSeen = Math.max(...fresh.map((r) => r.seq));
  const body = $('request-rows');
  body.prepend(
    ...fresh
      .slice(-200)
      .reverse()
      .map((r) => {
        const tr = el('tr');
        tr.append(
          cell('Time', time(r.time)),
          cell('Method', r.method),
          cell('Path', r.path, 'id'),
          cell('Status', String(r.status ?? '–'), statusClass(r.status)),
          cell('Key', r.key ?? '–'),
          cell('Request id', r.requestId, 'id'),
        );
        return tr;
      }),
  );
  // The newest 200 kept.
  while (body.children.length > 200) body.lastElementChild?.remove();
}

let requestsAsked = false;
/** The request log read again once for the events of a frame, not once for each. */
function requestsSoon(): void {
  if (requestsAsked) return;
  requestsAsked = true;
  requestAnimationFrame(() => {
    requestsAsked = false;
    void loadRequests();
  });
}

async function loadList(): Promise<void> {
  const list = await api<DeliverySummary[]>('/api/deliveries');
  rows.clear();
  for (const s of list) put(s);
  unsorted = true;
  renderList();
}

/** The next or previous row from the one with the focus (else the selected one); the focus goes with it. */
function move(step: number): void {
  if (order.length === 0) return;
  const from = focusedRowId() ?? selected;
  const at = from === undefined ? -1 : order.indexOf(from);
  const next = order[Math.min(order.length - 1, Math.max(0, at + step))];
  select(next, true);
}

/** Escape in a filter: the box and its filter are cleared together, and the list shows again. */
function clearFilter(control: HTMLInputElement | HTMLSelectElement): void {
  control.value = '';
  windowSize = WINDOW;
  renderList();
}

document.addEventListener(
  'keydown',
  (event) => {
    // Held down, a key acts once: no repeated replay from a held Enter, Space or r.
    if (event.repeat && (event.key === 'Enter' || event.key === ' ' || event.key === 'r')) {
      event.preventDefault();
      event.stopPropagation();
    }
  },
  true,
);

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) {
    if (event.key === 'Escape' && target.closest('#filters') !== null) {
      clearFilter(target);
      event.preventDefault();
    }
    return;
  }
  if (target instanceof HTMLTextAreaElement) return;
  if (event.key === 'Escape' && opened !== undefined) {
    backToList();
    event.preventDefault();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  // A focused button or link takes Enter and Space itself (native activation).
  const onControl =
    target instanceof HTMLButtonElement ||
    target instanceof HTMLAnchorElement ||
    (target instanceof HTMLElement && target.tagName === 'SUMMARY');
  // The arrows move between rows from a row or with nothing focused; elsewhere (a body's pane, a
  // button of the detail) they keep scrolling.
  const arrows = focusedRowId() !== undefined || target === document.body || target === document.documentElement;
  if (event.key === 'j' || (event.key === 'ArrowDown' && arrows)) move(1);
  else if (event.key === 'k' || (event.key === 'ArrowUp' && arrows)) move(-1);
  else if (event.key === 'Enter' && !onControl && selected !== undefined) void openDetail(selected, true);
  else if (event.key === 'r' && opened !== undefined && info.canReplay) void replay(opened.id, info.canResign && opened.resignable);
  else if (event.key === '/') $('f-text').focus();
  else return;
  event.preventDefault();
});

async function start(): Promise<void> {
  info = await api<InspectorInfo>('/api/info');
  $('side').textContent =
    info.kind === 'sandbox'
      ? 'rfs sandbox: deliveries sent'
      : `rfs webhooks listen: deliveries received${info.forwardTo === null ? '' : ` → ${shown(info.forwardTo)}`}`;
  // Each keystroke filters at once: it only picks among rows already built, the newest WINDOW.
  for (const id of ['f-verdict', 'f-status', 'f-text'])
    $(id).addEventListener('input', () => {
      windowSize = WINDOW;
      renderList();
    });
  $('more').addEventListener('click', () => {
    windowSize += WINDOW;
    renderList();
  });
  $('filters').addEventListener('submit', (e) => e.preventDefault());
  await loadList();
  if (info.hasRequests) {
    $('requests').hidden = false;
    await loadRequests();
  }
  // Reconnects send Last-Event-ID (the server's `id:` lines): what arrived meanwhile comes then;
  // `reload` says it cannot (an id too old, or of an earlier run), and the list is read again.
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => ($('live').textContent = 'live'));
  events.addEventListener('error', () => ($('live').textContent = 'reconnecting…'));
  events.addEventListener('reload', () => void loadList());
  events.addEventListener('delivery', (event) => {
    const s = JSON.parse((event as MessageEvent<string>).data) as DeliverySummary;
    put(s);
    renderSoon();
    if (s.id === opened?.id) void refreshDetail(s.id);
    if (info.hasRequests) requestsSoon();
  });
}

void start();
