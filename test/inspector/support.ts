// What the inspector's tests share: rfs webhooks listen --inspect as a child process (stopped by
// its PID), a test app behind --forward-to, signed and unsigned deliveries sent to the receiver,
// the inspector's JSON API, and waits on conditions (never on time).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RFS_BIN } from '../helpers/child.js';
import { send, signed } from '../commands/webhooks/listen/support.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SECRET = 'whsec_inspectorTestSecret0123456789abcdef';
/** docs/images/: screenshots go there only when asked (RFS_UPDATE_DOCS=1), never on an ordinary run. */
export const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
export const UPDATE_DOCS = process.env.RFS_UPDATE_DOCS === '1';

export interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The test app behind --forward-to: answers 201 with what `answer` makes (by default a short JSON), and keeps every request. */
export async function startApp(
  answer: (received: Received[]) => string | Promise<string> = (received) =>
    JSON.stringify({ app: 'test', seen: received.length, timestamp: received.at(-1)?.headers['x-service-timestamp'] }),
): Promise<{ url: string; received: Received[]; server: Server; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      const text = await answer(received);
      res.writeHead(201, { 'content-type': 'application/json', 'x-test-app': 'yes' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Child {
  child: ChildProcess;
  pid: number;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** rfs as a child process, until `ready` is seen on its stderr; stopped by its PID with SIGTERM. */
export async function startRfs(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Child & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [RFS_BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout?.resume();
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      const found = ready.exec(stderr);
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`rfs ${args.join(' ')} exited ${code}: ${stderr}`)));
  });
  return {
    child,
    pid: child.pid as number,
    match,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        process.kill(child.pid as number, 'SIGTERM');
      }),
  };
}

export const LISTEN_READY = /listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*inspector on (http:\/\/127\.0\.0\.1:\d+\/)#([A-Za-z0-9_-]+)/;

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface Listener extends Child {
  receiverUrl: string;
  inspectorUrl: string;
  /** The address rfs printed: the root and a one-time code after `#` (it opens the inspector once). */
  pageUrl: string;
}

/** Another one-time address of a running inspector: what rfs prints on SIGUSR2 (docs/inspector.md, Trust). */
export async function freshAddress(child: Child): Promise<string> {
  const from = child.stderr().length;
  process.kill(child.pid, 'SIGUSR2');
  return waitFor(
    'a fresh inspector address',
    () => /inspector on (http:\/\/\S+#[A-Za-z0-9_-]+) \(a fresh address/.exec(child.stderr().slice(from))?.[1],
  );
}

/** What the page does at load: the address's one-time code swapped for the run's cookie; the Cookie header to send, and the answer's status. */
export async function swapCode(address: string): Promise<{ status: number; cookie: string; setCookie: string }> {
  const url = new URL(address);
  const res = await fetch(new URL('/api/session', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: url.hash.slice(1) }),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { status: res.status, cookie: setCookie.split(';')[0] ?? '', setCookie };
}

/** rfs webhooks listen --inspect on free ports, verifying with SECRET, forwarding to `forwardTo` when given. */
export async function startListen(
  work: string,
  o: { forwardTo?: string; history?: string; extra?: string[]; secret?: string } = {},
): Promise<Listener> {
  const child = await startRfs(
    [
      'webhooks',
      'listen',
      '--port',
      '0',
      ...(o.forwardTo === undefined ? [] : ['--forward-to', o.forwardTo]),
      '--inspect',
      '127.0.0.1:0',
      '--history',
      o.history ?? join(work, 'history.jsonl'),
      '-o',
      'ndjson',
      ...(o.extra ?? []),
    ],
    { ...listenEnv(work), RFS_WEBHOOK_SECRET: o.secret ?? SECRET },
    LISTEN_READY,
  );
  const inspectorUrl = child.match[2] as string;
  return { ...child, receiverUrl: child.match[1] as string, inspectorUrl, pageUrl: `${inspectorUrl}#${child.match[3] as string}` };
}

export const listenEnv = (work: string): NodeJS.ProcessEnv => ({
  RFS_WEBHOOK_SECRET: SECRET,
  RFS_CONFIG_DIR: join(work, 'config'),
  XDG_STATE_HOME: join(work, 'state'),
});

/** A delivery as the service makes it: its body and headers; signed with `secret` unless `signature` says otherwise. */
export function delivery(
  id: string,
  o: { title?: string; body?: string | Buffer; secret?: string; signature?: string | null; timestamp?: number } = {},
): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.isBuffer(o.body)
    ? o.body
    : Buffer.from(
        o.body ?? JSON.stringify({ id, event: 'recording.completed', data: { id: 'rec_test0001', title: o.title ?? `title of ${id}` } }),
      );
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-delivery': id,
    'x-service-event': 'recording.completed',
    'x-service-timestamp': String(timestamp),
  };
  if (o.signature !== null) headers['x-service-signature'] = o.signature ?? signed(o.secret ?? SECRET, timestamp, body);
  return { body, headers };
}

/** Sends a delivery to the receiver; its status. */
export async function post(receiverUrl: string, d: { body: Buffer; headers: Record<string, string> }): Promise<number> {
  return (await send(`${receiverUrl}/`, { headers: d.headers, body: d.body })).status;
}

interface Summary {
  id: string;
  deliveryId: string | null;
  verdict: string;
  title: string | null;
  replayable: boolean;
  resignable: boolean;
  target: { status: number | null } | null;
  replay: { label: string; status: number | null } | null;
}

/** The inspector's list, newest first. */
export async function list(inspectorUrl: string): Promise<Summary[]> {
  return ((await (await fetch(`${inspectorUrl}api/deliveries`)).json()) as { data: Summary[] }).data;
}

/** The inspector's id of the delivery with this x-service-delivery, once it is listed. */
export function entryOf(inspectorUrl: string, deliveryId: string): Promise<Summary> {
  return waitFor(`delivery ${deliveryId} in the inspector`, async () =>
    (await list(inspectorUrl)).find((s) => s.deliveryId === deliveryId),
  );
}

/** POST /api/deliveries/<id>/replay (or replay-edited) as a script would: status and parsed answer. */
export async function replayApi(
  inspectorUrl: string,
  id: string,
  input: { resign?: boolean; body?: string; cookie?: string },
): Promise<{
  status: number;
  json: { data?: { label: string; request: { headers: Record<string, string> }; response: { status: number | null } }; error?: string };
}> {
  const path = input.body === undefined ? 'replay' : 'replay-edited';
  const res = await fetch(`${inspectorUrl}api/deliveries/${id}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(input.cookie === undefined ? {} : { cookie: input.cookie }) },
    body: JSON.stringify({ resign: input.resign, body: input.body }),
  });
  return { status: res.status, json: (await res.json()) as never };
}

/** The peak resident memory of a process so far, in MB (Linux: VmHWM of /proc/<pid>/status). */
export function peakRssMb(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (line === null) throw new Error(`no VmHWM for ${pid}`);
  return Number(line[1]) / 1024;
}
