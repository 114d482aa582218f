// The HTTP side: one node:http server, and for each request the fixed order of api.md and
// sandbox.md — body (bounded) → known route → fault → key → plan → scope → rate → validation →
// the rule — answered as JSON or problem details, always with an x-request-id.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from './app.js';
import { apiHostGuard, controlGuard } from './control-guard.js';
import type { SandboxKeys } from './keys.js';
import type { PickedFault } from './faults.js';
import { ProblemError, problemBody, type Reply } from './problem.js';
import { randomBase62 } from '../shared/ids.js';
import { MAX_STATE_BODY_BYTES, hasBody, readBody, splitTarget } from './request.js';
import { createRouter } from './routes/index.js';

const EMPTY: Buffer = Buffer.alloc(0);

/** What an /api/v1 request noted on its way, for the request log. */
interface ApiNotes {
  kind: PickedFault['kind'] | null;
  /** The key's name once authentication saw it (null: none or unknown); undefined before. */
  key: keyof SandboxKeys | null | undefined;
}
const GRACE_MS = 10_000;

export interface SandboxServer {
  server: Server;
  /** Stops accepting, lets requests in flight finish, then closes every connection. */
  shutdown(): Promise<void>;
}

/** `host`: what the sandbox was bound to, a name the control API also answers to. */
export function createSandboxServer(app: App, log: (line: string) => void, host: string): SandboxServer {
  const router = createRouter();
  const guardControl = controlGuard(host);
  const guardApiHost = apiHostGuard(host);
  const idPrefix = `req_${randomBase62(10)}`;
  let counter = 0;
  let active = 0;
  let closing = false;
  let onIdle: (() => void) | null = null;
  // Aborted at shutdown: injected delays end early so that requests in flight can finish.
  const stopping = new AbortController();

  function send(res: ServerResponse, requestId: string, reply: Reply): void {
    if (res.headersSent || res.destroyed) return;
    outcomes.set(res, reply.status);
    const headers: OutgoingHttpHeaders = { 'x-request-id': requestId, 'cache-control': 'no-store', ...reply.headers };
    if (reply.body !== undefined) {
      headers['content-type'] = reply.status >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8';
      headers['content-length'] = typeof reply.body === 'string' ? Buffer.byteLength(reply.body) : reply.body.length;
    }
    if (closing) headers.connection = 'close';
    res.writeHead(reply.status, headers);
    res.end(reply.body);
  }

  function sendProblem(res: ServerResponse, requestId: string, error: ProblemError): void {
    if (error.detail !== undefined) log(`${requestId} ${error.status} ${error.code}: ${error.detail}`);
    codes.set(res, error.code);
    send(res, requestId, { status: error.status, body: problemBody(error, requestId), headers: error.headers });
  }

  // What each answer was, for the request log: set where it is sent, read once it went out.
  const outcomes = new WeakMap<ServerResponse, number>();
  const codes = new WeakMap<ServerResponse, string>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `${idPrefix}${(counter++).toString(36)}`;
    const { segments, path, query } = splitTarget(req.url ?? '/');
    if (segments?.[0] !== 'api' || segments[1] !== 'v1') return answer(req, res, requestId, segments, path, query, null);
    app.stats.requests++;
    const faulted: ApiNotes = { kind: null, key: undefined };
    await answer(req, res, requestId, segments, path, query, faulted);
    if (res.destroyed && !outcomes.has(res) && faulted.kind !== 'reset') return;
    app.requestLog.add({
      time: new Date(app.now()).toISOString(),
      method: req.method ?? '',
      path,
      query,
      // Known already when the request got as far as authentication; looked up only otherwise.
      key: faulted.key === undefined ? app.keyName(req.headers.authorization) : faulted.key,
      status: outcomes.get(res) ?? null,
      code: codes.get(res) ?? null,
      requestId,
      fault: faulted.kind,
    });
  }

  /** `faulted` is where an /api/v1 request notes the fault it got; null for every other path. */
  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    segments: string[] | null,
    path: string,
    query: string,
    faulted: ApiNotes | null,
  ): Promise<void> {
    try {
      // Before the body is read: a refused caller gets nothing of the control API.
      if (segments?.[0] === '_sandbox') guardControl(req.method ?? '', req.headers, hasBody(req));
      let body = EMPTY;
      if (hasBody(req)) {
        const isState = req.method === 'PUT' && segments?.[0] === '_sandbox' && segments[1] === 'state' && segments.length === 2;
        const read = await readBody(req, isState ? MAX_STATE_BODY_BYTES : undefined);
        if (read === 'aborted') return;
        if (read === 'too-large') {
          const error = new ProblemError('PAYLOAD_TOO_LARGE', `the body is larger than ${isState ? '256' : '1'} MiB`, {
            headers: { connection: 'close' },
          });
          sendProblem(res, requestId, error);
          return;
        }
        body = read;
      }
      if (req.method === 'OPTIONS') {
        // What the path answers, with no key and no fault: a question about the API, not a use of it.
        const allow = segments === null ? [] : router.allowed(segments);
        if (allow.length === 0) throw new ProblemError('RESOURCE_NOT_FOUND', 'no such endpoint');
        send(res, requestId, { status: 204, headers: { allow: allow.join(', ') } });
        return;
      }
      // HEAD is answered as GET; node leaves the body out of a HEAD answer, keeping its length.
      const match = segments === null ? null : router.match(req.method ?? '', segments);
      if (!match) throw new ProblemError('RESOURCE_NOT_FOUND', 'no such endpoint');
      const ctx = { app, requestId, params: match.params, query, headers: req.headers, body };
      if (match.route.kind !== 'api') {
        const reply = await match.route.handle(ctx);
        await app.durable();
        send(res, requestId, reply);
        return;
      }
      guardApiHost?.(req.headers);
      const picked = app.faults.pick(req.method ?? '', path);
      const fault = picked?.kind ?? null;
      if (faulted) faulted.kind = fault;
      if (fault === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      if (fault === 'error-before') throw new ProblemError('INTERNAL_ERROR', 'injected fault: nothing was changed');
      if (fault === 'rate-limit') throw new ProblemError('RATE_LIMIT_EXCEEDED', 'injected fault', { headers: { 'retry-after': '1' } });
      if (fault === 'delay') await sleep(picked?.delayMs ?? 0, undefined, { signal: stopping.signal }).catch(() => undefined);
      const workspace = app.authorize(req.headers.authorization, match.route.scope, faulted ?? undefined);
      const reply = await match.route.handle({ ...ctx, workspace });
      // With --data, nothing is acknowledged before it is on disk (sandbox.md, Durability).
      await app.durable();
      if (fault === 'error-after') throw new ProblemError('INTERNAL_ERROR', 'injected fault: the change was made, the answer lost');
      send(res, requestId, reply);
    } catch (error) {
      if (error instanceof ProblemError) {
        sendProblem(res, requestId, error);
        return;
      }
      log(`request ${requestId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      sendProblem(res, requestId, new ProblemError('INTERNAL_ERROR'));
    }
  }

  const server = createServer(
    // 16 KiB of headers at most: larger ones get node's own 431, and the server stays up.
    { maxHeaderSize: 16 * 1024, requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 },
    (req, res) => {
      active++;
      void handle(req, res)
        .catch((error: unknown) => {
          // Whatever failed after the answer's rules (the request log, a caller's clock): said, never an unhandled rejection.
          log(`request failed: ${error instanceof Error ? error.message : String(error)}`);
          if (!res.headersSent) sendProblem(res, 'req_unknown', new ProblemError('INTERNAL_ERROR'));
          else if (!res.writableEnded) res.destroy();
        })
        .finally(() => {
          active--;
          if (active === 0) onIdle?.();
        });
    },
  );

  async function shutdown(): Promise<void> {
    closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    stopping.abort();
    if (active > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GRACE_MS);
        onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), GRACE_MS);
    await closed;
    clearTimeout(force);
  }

  return { server, shutdown };
}
