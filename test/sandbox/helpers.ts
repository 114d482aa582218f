// Test helpers: a sandbox on 127.0.0.1:0 with DNS injected (no test ever resolves a real
// name), small fetch wrappers, a raw-path request, and a local webhook receiver.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { checkAnswer, checkPayload, prepareAnswerChecks } from '../support/openapi-answers.js';

/** Names the tests may use; anything else fails like NXDOMAIN, never reaching real DNS. */
export function fakeDns(table: Record<string, string[]> = {}): (host: string) => Promise<string[]> {
  const all: Record<string, string[]> = { localhost: ['127.0.0.1'], ...table };
  return async (host) => {
    const found = all[host.replace(/\.$/, '')];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Tests read answers loosely; each assertion names the fields it relies on.
  // biome-ignore lint/suspicious/noExplicitAny: an answer of any shape, read field by field in the assertions
  json: any;
}

export interface Harness {
  sandbox: RunningSandbox;
  /** Every line the sandbox logged (problem details, delivery attempts). */
  logs: string[];
  base: string;
  keys: RunningSandbox['apiKeys'];
  api(path: string, init?: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  control(path: string, body?: unknown, method?: string): Promise<Answer>;
  close(): Promise<void>;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export async function start(options: SandboxOptions = {}): Promise<Harness> {
  prepareAnswerChecks();
  const logs: string[] = [];
  const sandbox = await startSandbox({
    port: 0,
    seed: 'test-seed',
    resolveHost: fakeDns(),
    ...options,
    log: (line) => {
      logs.push(line);
      options.log?.(line);
    },
  });
  const base = sandbox.baseUrl;
  const keys = sandbox.apiKeys;
  return {
    sandbox,
    logs,
    base,
    keys,
    async api(path, init = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
      const key = init.key === undefined ? keys.admin : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const method = init.method ?? (body === undefined ? 'GET' : 'POST');
      const got = await answer(await fetch(`${base}/api/v1${path}`, { method, headers, body }));
      // Every answer a sandbox test receives is also checked against the OpenAPI document.
      checkAnswer(method, path, got.status, got.headers.get('content-type'), got.text);
      return got;
    },
    async control(path, body, method) {
      const init: RequestInit = { method: method ?? (body === undefined ? 'GET' : 'POST') };
      if (body !== undefined) init.body = JSON.stringify(body);
      // A control request that changes something says application/json, body or not (control-guard.ts).
      if (body !== undefined || init.method === 'POST' || init.method === 'PUT') init.headers = { 'content-type': 'application/json' };
      return answer(await fetch(`${base}/_sandbox${path}`, init));
    },
    close: () => sandbox.close(),
  };
}

/** A request with the path exactly as written (fetch would normalise `..` and `%2F`). */
export function rawRequest(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** What the next requests are answered with. */
  respond: (status: number, headers?: Record<string, string>) => void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A local webhook receiver. With `checkDeliveries`, every request that carries x-service-event
 * (a delivery of the sandbox) is checked against the OpenAPI document's webhook, and waitFor
 * fails on one that does not match; tests that post hand-made payloads leave it off.
 */
export async function startReceiver(path = '/hook', options: { checkDeliveries?: boolean } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  let extra: Record<string, string> = {};
  const waiters: (() => void)[] = [];
  // A delivery's body that the OpenAPI document's webhook would refuse (checkDeliveries): waitFor reports it.
  const contractErrors: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (options.checkDeliveries && req.headers['x-service-event'] !== undefined) {
        try {
          checkPayload(body.toString('utf8'));
        } catch (error) {
          contractErrors.push((error as Error).message);
        }
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(status, extra);
      res.end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    respond(next, headers = {}) {
      status = next;
      extra = headers;
    },
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (contractErrors.length > 0) throw new Error(contractErrors[0]);
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      if (contractErrors.length > 0) throw new Error(contractErrors[0]);
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns a value (not undefined), or fails after the timeout. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * One sandbox for a file of fault tests: no rate limit, faults cleared after each test, and a
 * recording not used before for each call of `fresh()`. Registers its own hooks.
 */
export function faultSandbox(o: { recordings: number; provider: string }) {
  let harness: Harness | undefined;
  let ids: string[] = [];
  let next = 0;
  const h = (): Harness => {
    if (!harness) throw new Error('the fault sandbox is not started yet');
    return harness;
  };
  beforeAll(async () => {
    harness = await start({ rateLimit: 0, recordings: o.recordings });
    ids = (await harness.api('/recordings?limit=100')).json.data.map((r: { id: string }) => r.id);
  });
  afterAll(() => harness?.close());
  afterEach(async () => {
    await h().control('/faults', { rate: 0 });
  });
  return {
    h,
    fresh: (): string => ids[next++] as string,
    faults: (body: unknown) => h().control('/faults', body),
    file: (id: string, externalId: string) => h().api(`/recordings/${id}/filings`, { body: { provider: o.provider, externalId } }),
  };
}
