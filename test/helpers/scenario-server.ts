/**
 * A scripted HTTP server for faults the sandbox cannot make: queue one response per expected
 * request, in order; every raw request is recorded; a request with nothing queued for it (or one
 * that does not match its `expect`) is answered 599 and recorded as a failure, so `verify()`
 * throws. Listens on 127.0.0.1, port 0.
 *
 *   const server = await startScenarioServer();
 *   server.queue({ status: 503 }, { status: 200, body: { data: [] } });
 *   … run the client against server.url …
 *   server.verify();                      // no unexpected request, every queued response used
 *   await server.close();                 // also drops open connections and pending timers
 *
 * Every test also gets that check without asking: test/support/verify-scenarios.ts calls
 * verifyScenarioServers() in an afterEach, for each server started or still open (gh's
 * `reg.Verify`), so a missed or extra request fails the test that made it.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedResponse {
  /** Checked against the request; a mismatch is recorded as a failure (the response is still sent). */
  expect?: { method?: string; url?: string | RegExp };
  /** Default 200. */
  status?: number;
  headers?: Record<string, string | string[]>;
  /** A string or Buffer is sent as is; anything else as JSON (content-type application/json unless headers give one). */
  body?: unknown;
  /** Wait this long before answering (or resetting). */
  delayMs?: number;
  /** Reset the TCP connection (RST) instead of answering. */
  reset?: boolean;
  /** Send the headers and `body`, then keep the response open without ever ending it. */
  endless?: boolean;
  /** Instead of `body`, stream this many bytes (chunked, no content-length) as fast as the client reads. */
  streamBytes?: number;
}

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived on the wire (never normalised). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the scripted response was written to its end (false for reset, endless, cut-off streams). */
  completed: boolean;
}

export interface ScenarioServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly RecordedRequest[];
  /** Queues responses for the next requests, in order. */
  queue(...responses: ScriptedResponse[]): void;
  /** Throws if a request was unexpected or mismatched, or if queued responses were never used. */
  verify(): void;
  close(): Promise<void>;
}

/** Servers to check after the current test: those started since the last check, and the open ones. */
const toCheck = new Map<ScenarioServer, { open: boolean; settle: () => string[] }>();

/**
 * Throws, naming each problem, if any scenario server of the current test saw a request it did
 * not expect or kept a queued response nobody asked for. A server shared by several tests is
 * then cleared, so that one test's leftovers fail that test only.
 */
export function verifyScenarioServers(): void {
  const problems: string[] = [];
  for (const [server, state] of toCheck) {
    problems.push(...state.settle().map((p) => `${server.url}: ${p}`));
    if (!state.open) toCheck.delete(server);
  }
  if (problems.length > 0) throw new Error(`scenario server:\n  ${problems.join('\n  ')}`);
}

export async function startScenarioServer(): Promise<ScenarioServer> {
  const pending: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const record: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        completed: false,
      };
      requests.push(record);
      const script = pending.shift();
      if (script === undefined) {
        failures.push(`unexpected request #${requests.length}: ${record.method} ${record.url}`);
        res.writeHead(599, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ title: 'unexpected request (nothing queued in the scenario server)', status: 599 }));
        return;
      }
      const mismatch = describeMismatch(script, record);
      if (mismatch) failures.push(`request #${requests.length}: ${mismatch}`);
      const respond = (): void => {
        if (res.destroyed) return;
        play(script, res, req.socket, record);
      };
      if (script.delayMs) later(script.delayMs, respond);
      else respond();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const problemsNow = (): string[] => {
    const problems = [...failures];
    if (pending.length > 0)
      problems.push(`${pending.length} queued response(s) never requested: ${pending.map(describeScript).join(', ')}`);
    return problems;
  };
  const scenario: ScenarioServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    queue(...responses) {
      pending.push(...responses);
    },
    verify() {
      const problems = problemsNow();
      if (problems.length > 0) throw new Error(`scenario server:\n  ${problems.join('\n  ')}`);
    },
    async close() {
      state.open = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  const state = {
    open: true,
    settle(): string[] {
      const problems = problemsNow();
      failures.length = 0;
      pending.length = 0;
      return problems;
    },
  };
  toCheck.set(scenario, state);
  return scenario;
}

function describeScript(script: ScriptedResponse): string {
  const want = script.expect ? `${script.expect.method ?? '*'} ${String(script.expect.url ?? '*')} → ` : '';
  return `${want}${script.reset ? 'reset' : (script.status ?? 200)}`;
}

/** A port on 127.0.0.1 that nothing listens on (it was listened on and closed), for "connection refused". */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function describeMismatch(script: ScriptedResponse, record: RecordedRequest): string | undefined {
  const want = script.expect;
  if (!want) return undefined;
  if (want.method !== undefined && want.method !== record.method)
    return `expected method ${want.method}, got ${record.method} ${record.url}`;
  if (want.url !== undefined) {
    const matches = typeof want.url === 'string' ? want.url === record.url : want.url.test(record.url);
    if (!matches) return `expected url ${String(want.url)}, got ${record.url}`;
  }
  return undefined;
}

function play(script: ScriptedResponse, res: ServerResponse, socket: Socket, record: RecordedRequest): void {
  if (script.reset) {
    socket.resetAndDestroy();
    return;
  }
  const headers: Record<string, string | string[]> = { ...script.headers };
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  let body: string | Buffer | undefined;
  if (typeof script.body === 'string' || Buffer.isBuffer(script.body)) body = script.body;
  else if (script.body !== undefined) {
    body = JSON.stringify(script.body);
    if (!hasType) headers['content-type'] = 'application/json';
  }
  res.writeHead(script.status ?? 200, headers);

  if (script.streamBytes !== undefined) {
    streamBytes(res, script.streamBytes, record);
    return;
  }
  if (script.endless) {
    if (body !== undefined) res.write(body);
    else res.flushHeaders();
    return;
  }
  res.end(body, () => {
    record.completed = true;
  });
}

function streamBytes(res: ServerResponse, total: number, record: RecordedRequest): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      const size = Math.min(chunk.length, total - sent);
      sent += size;
      if (!res.write(size === chunk.length ? chunk : chunk.subarray(0, size))) {
        res.once('drain', pump);
        return;
      }
    }
    if (sent >= total && !res.destroyed) res.end(() => (record.completed = true));
  };
  pump();
}
