// The wire under the one HTTP client (client.ts `send`) and the webhook sender: one origin,
// HTTP/1.1 over Node's own node:http / node:https, connections kept alive between requests
// (--all, sync). Not undici: its HTTP parser is WebAssembly that V8 compiles in every process,
// and a command of rfs lives a fraction of a second at 120 requests a minute: a bare script
// fetching one page takes 1.25× `node -e 0` with node:http and 1.67–2.0× with undici
// (bench/README.md, "How rfs starts"; ARCHITECTURE.md, "How rfs starts").
//
// What the callers rely on: a request ends with an answer whose body is a stream they read (or
// destroy) themselves, or rejects with an error whose `code` retry.ts classifies; `signal`
// aborts it at any point, body included; the response head is refused beyond `maxHeaderBytes`
// (code HPE_HEADER_OVERFLOW) and bytes that are not HTTP fail with an HPE_* code.
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface TransportRequest {
  /** Path and query from the origin, sent verbatim. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  signal: AbortSignal;
}

export interface TransportAnswer {
  status: number;
  statusText: string;
  /** Lower-case names; a header sent more than once is an array of its values, in order. */
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportAnswer>;
  /** Closes every connection kept for the next request. */
  close(): Promise<void>;
}

/**
 * Node says "socket hang up" (no answer at all) and "aborted" (an answer cut short) with the code
 * of a reset, although the peer only closed the connection: named for what happened.
 */
export const CLOSED_BY_SERVER = 'ECONNCLOSED';

export function openTransport(origin: URL, options: { maxHeaderBytes: number }): Transport {
  const secure = origin.protocol === 'https:';
  // process.getBuiltinModule, not an import: node:https brings node:tls, which a plain-http
  // (loopback) run never needs; and an ES module import of node:http reads every export, whose
  // lazy WebSocket getters load Node's own undici on Node 22+ (src/api/problem.ts).
  const http = secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const agent: Agent = new http.Agent({ keepAlive: true });
  // URL keeps the brackets of an IPv6 literal; a socket wants the bare address.
  const hostname = origin.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = origin.port === '' ? undefined : Number(origin.port);

  function request({ path, method, headers, body, signal }: TransportRequest): Promise<TransportAnswer> {
    return new Promise((resolve, reject) => {
      let req: ClientRequest;
      try {
        req = http.request(
          { agent, hostname, port, path, method, headers, signal, maxHeaderSize: options.maxHeaderBytes },
          (res: IncomingMessage) => {
            // A body cut short reaches its reader as the stream's error, renamed like the head's.
            const body = res as Readable;
            const renamed = (error: Error): void => void closedByServer(error);
            body.on('error', renamed);
            resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: distinct(res), body });
          },
        );
      } catch (error) {
        reject(error);
        return;
      }
      // `on`, not `once`: after the answer has come, a late error must not go unhandled.
      req.on('error', (error) => reject(closedByServer(error)));
      // The body in one piece with the head: sent with its Content-Length, not chunked.
      req.end(body);
    });
  }

  return {
    request,
    async close() {
      agent.destroy();
    },
  };
}

/** Renames Node's "socket hang up" / "aborted" resets (see CLOSED_BY_SERVER), in place. */
function closedByServer(error: Error): Error {
  const e = error as Error & { code?: string };
  if (e.code === 'ECONNRESET' && (e.message === 'socket hang up' || e.message === 'aborted')) e.code = CLOSED_BY_SERVER;
  return e;
}

/** The answer's headers as undici gave them: one string, or an array when repeated. */
function distinct(res: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, values] of Object.entries(res.headersDistinct)) {
    if (values !== undefined) headers[name] = values.length === 1 ? values[0] : values;
  }
  return headers;
}
