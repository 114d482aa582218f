// The inspector's page: a client of its own JSON API (../server.ts), in plain TypeScript and the
// DOM: one list, one detail and a few buttons need no component library, and the bundle stays a
// few kilobytes with no dependency to keep. Every value from the server goes in as text
// (textContent), never as markup.
import type { DeliveryDetail, DeliverySummary, Exchange, InspectorInfo } from '../model.js';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

let info: InspectorInfo = { kind: 'listen', forwardTo: null, canReplay: false, canResign: false, hasRequests: false };
const rows = new Map<string, DeliverySummary>();
let order: string[] = [];
let selected: string | undefined;
let opened: string | undefined;
/** What the last replay got back, shown again when its delivery's detail is drawn anew. */
let lastReplay: { id: string; text: string } | undefined;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string | null, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, init);
  const body = (await res.json()) as { data?: T; error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body.data as T;
}

const time = (iso: string): string => new Date(iso).toLocaleTimeString([], { hour12: false });
const statusClass = (status: number | null): string => (status === null ? 'bad' : `s${String(status)[0]}`);
const verdictClass = (verdict: string): string =>
  verdict === 'valid' || verdict === 'duplicate' || verdict === 'SUCCEEDED' ? 'valid' : verdict === 'PENDING' ? '' : 'bad';

function target(s: DeliverySummary): string {
  if (s.target === null) return '–';
  const status = s.target.status === null ? 'no answer' : String(s.target.status);
  return `${status} · ${s.target.durationMs} ms`;
}

function matches(s: DeliverySummary): boolean {
  const verdict = $<HTMLSelectElement>('f-verdict').value;
  const status = $<HTMLSelectElement>('f-status').value;
  const text = $<HTMLInputElement>('f-text').value.trim().toLowerCase();
  if (verdict !== '' && s.verdict !== verdict) return false;
  const answered = s.target?.status ?? s.status;
  if (status === 'none' && answered !== null) return false;
  if (status !== '' && status !== 'none' && (answered === null || String(answered)[0] !== status)) return false;
  if (text === '') return true;
  return [s.deliveryId, s.event, s.recordingId, s.title, s.verdict, s.id].some((v) => v?.toLowerCase().includes(text));
}

function renderList(): void {
  const body = $<HTMLTableSectionElement>('rows');
  const all = [...rows.values()].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : Number(b.id) - Number(a.id)));
  const shown = all.filter(matches);
  order = shown.map((s) => s.id);
  body.replaceChildren(
    ...shown.map((s) => {
      const tr = el('tr');
      tr.dataset.id = s.id;
      tr.setAttribute('aria-selected', String(s.id === selected));
      tr.append(
        el('td', time(s.at)),
        el('td', s.verdict, verdictClass(s.verdict)),
        el('td', s.status === null ? '–' : String(s.status), statusClass(s.status)),
        el('td', target(s), `wide ${s.target === null ? '' : statusClass(s.target.status)}`),
        el('td', s.event ?? '–', 'wide'),
        el('td', s.deliveryId ?? '–', 'id'),
        el('td', s.title ?? '–', 'title'),
      );
      tr.addEventListener('click', () => {
        select(s.id);
        void open(s.id);
      });
      return tr;
    }),
  );
  $('empty').hidden = shown.length > 0;
  const verdicts = $<HTMLSelectElement>('f-verdict');
  const known = new Set([...verdicts.options].map((o) => o.value));
  for (const s of all) {
    if (!known.has(s.verdict)) {
      verdicts.append(new Option(s.verdict, s.verdict));
      known.add(s.verdict);
    }
  }
}

function select(id: string | undefined): void {
  selected = id;
  for (const tr of $<HTMLTableSectionElement>('rows').querySelectorAll('tr')) {
    const on = tr.dataset.id === id;
    tr.setAttribute('aria-selected', String(on));
    if (on) tr.scrollIntoView({ block: 'nearest' });
  }
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

function exchangeView(e: Exchange): HTMLElement {
  const box = el('div', undefined, 'exchange');
  box.dataset.label = e.label;
  const r = e.response;
  const head = `${e.label}: ${r.status === null ? `no answer (${r.error ?? 'unknown'})` : `HTTP ${r.status}`} in ${r.durationMs} ms`;
  box.append(el('h3', head, statusClass(r.status)), el('p', `${time(e.at)}${e.url === null ? '' : ` → ${e.url}`}`));
  if (Object.keys(r.headers).length > 0) box.append(el('h4', 'Answer headers'), headerList(r.headers));
  if (r.body !== null) {
    box.append(el('h4', `Answer body${r.bodyTruncated ? ' (first 64 KiB)' : ''}`));
    const pre = el('pre', r.body === '' ? '(empty)' : r.body);
    pre.className = 'answer-body';
    box.append(pre);
  }
  if (Object.keys(e.request.headers).length > 0) {
    const details = el('details');
    details.append(el('summary', 'Request headers sent'), headerList(e.request.headers));
    box.append(details);
  }
  return box;
}

function sayReplay(id: string, text: string): void {
  lastReplay = { id, text };
  if (opened === id) $('replay-result').textContent = text;
}

async function replay(id: string, resign: boolean): Promise<void> {
  sayReplay(id, resign ? 'replaying, re-signed…' : 'replaying as sent…');
  try {
    const e = await api<Exchange>(`/api/deliveries/${encodeURIComponent(id)}/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resign }),
    });
    sayReplay(
      id,
      `${e.label}: ${e.response.status === null ? `no answer (${e.response.error ?? ''})` : `HTTP ${e.response.status}`} in ${e.response.durationMs} ms`,
    );
  } catch (error) {
    sayReplay(id, `replay failed: ${(error as Error).message}`);
  }
}

async function copyCurl(id: string): Promise<void> {
  const res = await fetch(`/api/deliveries/${encodeURIComponent(id)}/curl`);
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

async function open(id: string): Promise<void> {
  const d = await api<DeliveryDetail>(`/api/deliveries/${encodeURIComponent(id)}`);
  opened = id;
  const pane = $('detail');
  const actions = el('div', undefined, 'actions');
  if (info.canReplay) {
    const asSent = el('button', info.kind === 'sandbox' ? 'Replay (API)' : 'Replay as sent');
    asSent.id = 'replay-as-sent';
    asSent.addEventListener('click', () => void replay(d.id, false));
    actions.append(asSent);
  }
  if (info.canResign) {
    const resigned = el('button', 'Replay re-signed');
    resigned.id = 'replay-resigned';
    resigned.addEventListener('click', () => void replay(d.id, true));
    actions.append(resigned);
  }
  const curl = el('button', 'Copy as curl');
  curl.id = 'copy-curl';
  curl.addEventListener('click', () => void copyCurl(d.id));
  const fixture = el('a', 'Download fixture', 'button');
  fixture.id = 'download-fixture';
  fixture.href = `/api/deliveries/${encodeURIComponent(d.id)}/body`;
  fixture.download = '';
  actions.append(curl, fixture);
  const summary = el('dl');
  const facts: [string, string | null][] = [
    ['Delivery', d.deliveryId],
    ['Event', d.event],
    ['Recording', d.recordingId],
    ['Title', d.title],
    ['Verdict', d.verdict],
    ['Why', d.explanation],
    ['Answered', d.status === null ? null : String(d.status)],
    ['Arrived', new Date(d.at).toLocaleString()],
  ];
  for (const [name, value] of facts) if (value !== null && value !== '') summary.append(el('dt', name), el('dd', value));
  const raw = el('pre', d.request.body);
  raw.id = 'raw-body';
  const note = el('p', lastReplay?.id === id ? lastReplay.text : '');
  note.id = 'replay-result';
  note.setAttribute('aria-live', 'polite');
  const parts: HTMLElement[] = [el('h2', `${d.request.method} ${d.request.path}`), summary, actions, note];
  const curlBox = el('textarea');
  curlBox.id = 'curl';
  curlBox.hidden = true;
  curlBox.readOnly = true;
  curlBox.rows = 6;
  curlBox.style.width = '100%';
  parts.push(curlBox, el('h3', 'Request headers'), headerList(d.request.headers), el('h3', 'Raw body'), raw);
  const json = pretty(d.request.body);
  if (json !== null) {
    const p = el('pre', json);
    p.id = 'pretty-body';
    parts.push(el('h3', 'Body as JSON'), p);
  }
  if (d.exchanges.length > 0) {
    parts.push(el('h3', info.kind === 'sandbox' ? 'Attempts' : 'Forward target'));
    const list = el('div');
    list.id = 'exchanges';
    list.append(...d.exchanges.map(exchangeView));
    parts.push(list);
  }
  pane.replaceChildren(...parts);
}

async function loadRequests(): Promise<void> {
  const list =
    await api<{ seq: number; time: string; method: string; path: string; status: number | null; key: string | null; requestId: string }[]>(
      '/api/requests',
    );
  $('request-rows').replaceChildren(
    ...list
      .slice(-200)
      .reverse()
      .map((r) => {
        const tr = el('tr');
        tr.append(
          el('td', time(r.time)),
          el('td', r.method),
          el('td', r.path),
          el('td', String(r.status ?? '–'), statusClass(r.status)),
          el('td', r.key ?? '–'),
          el('td', r.requestId),
        );
        return tr;
      }),
  );
}

function move(step: number): void {
  if (order.length === 0) return;
  const at = selected === undefined ? -1 : order.indexOf(selected);
  const next = order[Math.min(order.length - 1, Math.max(0, at + step))];
  select(next);
}

document.addEventListener('keydown', (event) => {
  const typing =
    event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || event.target instanceof HTMLTextAreaElement;
  if (typing) {
    if (event.key === 'Escape') (event.target as HTMLElement).blur();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 'j' || event.key === 'ArrowDown') move(1);
  else if (event.key === 'k' || event.key === 'ArrowUp') move(-1);
  else if (event.key === 'Enter' && selected !== undefined) void open(selected);
  else if (event.key === 'r' && opened !== undefined && info.canReplay) void replay(opened, info.canResign);
  else if (event.key === '/') $('f-text').focus();
  else return;
  event.preventDefault();
});

async function start(): Promise<void> {
  info = await api<InspectorInfo>('/api/info');
  $('side').textContent =
    info.kind === 'sandbox'
      ? 'rfs sandbox: deliveries sent'
      : `rfs webhooks listen: deliveries received${info.forwardTo === null ? '' : ` → ${info.forwardTo}`}`;
  for (const id of ['f-verdict', 'f-status', 'f-text']) $(id).addEventListener('input', renderList);
  $('filters').addEventListener('submit', (e) => e.preventDefault());
  for (const s of await api<DeliverySummary[]>('/api/deliveries')) rows.set(s.id, s);
  renderList();
  if (info.hasRequests) {
    $('requests').hidden = false;
    await loadRequests();
  }
  const events = new EventSource('/api/events');
  events.addEventListener('open', () => ($('live').textContent = 'live'));
  events.addEventListener('error', () => ($('live').textContent = 'reconnecting…'));
  events.addEventListener('delivery', (event) => {
    const s = JSON.parse((event as MessageEvent<string>).data) as DeliverySummary;
    rows.set(s.id, s);
    renderList();
    if (s.id === opened) void open(s.id);
    if (info.hasRequests) void loadRequests();
  });
}

void start();
