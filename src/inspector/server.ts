// The inspector's server (cli.md, webhooks listen --inspect; sandbox.md, Inspecting it;
// style.md, "A local web page is a client of its own JSON API"): the page's three files, a JSON
// API and a Server-Sent Events stream, on loopback, behind the control API's Host and Origin
// rule (core/local-guard.ts). Thin: what the page does, a script does with curl.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY_PREFIX } from '../core/redact.js';
import { localGuard } from '../core/local-guard.js';
import { listenOn, urlHost } from '../core/listen.js';
import { type AssetName, readAssets } from './assets.js';
import { InspectorError, type InspectorSource } from './source.js';

// As in src/webhooks/receiver.ts: an ES module import of node:http loads Node's own undici on Node 22+.
const { createServer } = process.getBuiltinModule('node:http');

/** A replay request's body is a few bytes: `{"resign": true}`. */
const MAX_REQUEST_BYTES = 16 * 1024;

// Nothing that looks like a webhook secret or an API key ever reaches the page, whatever a
// sender put in a delivery: each answer is scrubbed as a whole. (The listener's own secret is
// never in what the source holds; this covers what others sent.)
const SECRET_LIKE = new RegExp(`whsec_[A-Za-z0-9+/=_-]*|${API_KEY_PREFIX}[A-Za-z0-9_-]*`, 'g');
export function scrub(text: string): string {
  return text.replace(SECRET_LIKE, (found) => (found.startsWith('whsec_') ? '[webhook secret removed]' : '[API key removed]'));
}

const TYPES: Record<AssetName, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

// The page's own files and API only: no inline script, no other origin, no framing.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A POSIX shell word: single quotes, each quote inside closed, escaped and opened again. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The delivery as a curl command: its signature headers and body as sent (never the secret). */
export function curlCommand(url: string, headers: Record<string, string>, body: Buffer): string {
  const lines = [`curl -sS -X POST ${shellWord(url)}`];
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith('x-service-') || name === 'content-type') lines.push(`  -H ${shellWord(`${name}: ${value}`)}`);
  }
  lines.push(`  --data-binary ${shellWord(body.toString('utf8'))}`);
  return `${lines.join(' \\\n')}\n`;
}

export interface InspectorServerOptions {
  /** `host:port` as --inspect took it. */
  host: string;
  port: number;
  source: InspectorSource;
  /** The folder of the page's files (assets.ts). */
  assets: string;
}

export interface RunningInspector {
  url: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...PAGE_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', `${scrub(JSON.stringify(value))}\n`);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new InspectorError(413, `the body is larger than ${MAX_REQUEST_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text.trim() === '' ? {} : JSON.parse(text));
      } catch {
        reject(new InspectorError(400, 'the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

export async function startInspector(o: InspectorServerOptions): Promise<RunningInspector> {
  const files = await readAssets(o.assets);
  const guard = localGuard(o.host, 'the inspector');
  const streams = new Set<ServerResponse>();

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const hasBody = req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0';
    const refusal = guard(method, req.headers, hasBody || req.headers['transfer-encoding'] !== undefined);
    if (refusal !== null) {
      json(res, refusal.kind === 'content-type' ? 415 : 403, { error: refusal.detail });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://inspector.invalid');
    const parts = url.pathname
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent);
    const get = method === 'GET' || method === 'HEAD';
    if (get && (url.pathname === '/' || url.pathname === '/index.html')) return send(res, 200, TYPES['index.html'], files['index.html']);
    if (get && (url.pathname === '/app.js' || url.pathname === '/app.css')) {
      const name = url.pathname.slice(1) as AssetName;
      return send(res, 200, TYPES[name], files[name]);
    }
    if (get && url.pathname === '/favicon.ico') {
      res.writeHead(204, PAGE_HEADERS).end();
      return;
    }
    if (parts[0] !== 'api') return json(res, 404, { error: 'no such page' });
    const [, what, id, action] = parts;
    if (get && what === 'info' && parts.length === 2) return json(res, 200, { data: o.source.info() });
    if (get && what === 'events' && parts.length === 2) return events(req, res);
    if (get && what === 'requests' && parts.length === 2) {
      if (o.source.requests === undefined) return json(res, 404, { error: 'no request log here: only rfs sandbox --inspect has one' });
      return json(res, 200, { data: o.source.requests(Number(url.searchParams.get('since') ?? 0) || 0) });
    }
    if (what !== 'deliveries') return json(res, 404, { error: 'no such endpoint' });
    if (get && id === undefined) return json(res, 200, { data: o.source.list() });
    if (id === undefined) return json(res, 405, { error: 'GET /api/deliveries lists them' });
    if (get && action === undefined) {
      const detail = o.source.detail(id);
      return detail === undefined ? json(res, 404, { error: `no delivery ${id}` }) : json(res, 200, { data: detail });
    }
    if (get && (action === 'body' || action === 'curl') && parts.length === 4) {
      const detail = o.source.detail(id);
      const body = o.source.body(id);
      if (detail === undefined || body === undefined) return json(res, 404, { error: `no delivery ${id}` });
      if (action === 'curl') {
        const target = o.source.curlTarget(id) ?? '';
        return send(res, 200, 'text/plain; charset=utf-8', scrub(curlCommand(target, detail.request.headers, body)));
      }
      // A fixture for `rfs webhooks trigger --payload`: the body's bytes, as a download.
      const name = `${(detail.deliveryId ?? `delivery-${id}`).replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
      return send(res, 200, 'application/json', Buffer.from(scrub(body.toString('utf8'))), {
        'content-disposition': `attachment; filename="${name}"`,
      });
    }
    if (method === 'POST' && action === 'replay' && parts.length === 4) {
      const input = (await readJson(req)) as { resign?: unknown } | null;
      if (
        typeof input !== 'object' ||
        input === null ||
        Array.isArray(input) ||
        (input.resign !== undefined && typeof input.resign !== 'boolean')
      )
        throw new InspectorError(400, 'expected {"resign": true | false}');
      return json(res, 200, { data: await o.source.replay(id, input.resign === true) });
    }
    return json(res, 404, { error: 'no such endpoint' });
  };

  const events = (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { ...PAGE_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    const stop = o.source.subscribe((summary) => res.write(`event: delivery\ndata: ${scrub(JSON.stringify(summary))}\n\n`));
    const beat = setInterval(() => res.write(': still here\n\n'), 15_000);
    beat.unref();
    req.on('close', () => {
      clearInterval(beat);
      stop();
      streams.delete(res);
    });
  };

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof InspectorError) json(res, error.status, { error: error.message });
      else json(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  const bound: AddressInfo = await listenOn(server, o.host, o.port);
  return {
    url: `http://${urlHost(o.host, bound.address)}:${bound.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
