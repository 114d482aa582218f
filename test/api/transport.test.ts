// The transport under the one HTTP client (src/api/transport.ts), against a real server on
// 127.0.0.1: what client.ts relies on from it beyond what the client's own tests see.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_BY_SERVER, openTransport, type Transport } from '../../src/api/transport.js';

let server: Server | undefined;
let transport: Transport | undefined;

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listen(
  handler: Parameters<typeof createServer>[1],
): Promise<{ origin: URL; connections: () => number; received: IncomingMessage[] }> {
  let connections = 0;
  const received: IncomingMessage[] = [];
  server = createServer((req, res) => {
    received.push(req);
    handler?.(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: new URL(`http://127.0.0.1:${port}`), connections: () => connections, received };
}

async function text(body: AsyncIterable<Buffer>): Promise<string> {
  let out = '';
  for await (const chunk of body) out += chunk.toString('utf8');
  return out;
}

const request = (path: string, body?: string) => ({
  path,
  method: body === undefined ? 'GET' : 'POST',
  headers: { accept: 'application/json' },
  body,
  signal: new AbortController().signal,
});

describe('openTransport', () => {
  it('keeps one connection for requests made one after the other (--all, sync)', async () => {
    const local = await listen((_req, res) => res.end('ok'));
    transport = openTransport(local.origin, { maxHeaderBytes: 16 * 1024 });
    for (const path of ['/a', '/b?x=1', '/c']) {
      const answer = await transport.request(request(path));
      expect(answer.status).toBe(200);
      expect(await text(answer.body)).toBe('ok');
    }
    expect(local.received.map((r) => r.url)).toEqual(['/a', '/b?x=1', '/c']);
    expect(local.connections()).toBe(1);
  });

  it('sends a body with its length, and a header repeated by the server arrives as a list in order', async () => {
    const local = await listen((req, res) => {
      res.setHeader('x-note', ['first', 'second']);
      res.setHeader('x-request-id', 'req_1');
      res.writeHead(201, 'Made');
      req.pipe(res);
    });
    transport = openTransport(local.origin, { maxHeaderBytes: 16 * 1024 });
    const answer = await transport.request(request('/filings', '{"é":1}'));
    expect(answer).toMatchObject({ status: 201, statusText: 'Made' });
    expect(answer.headers['x-note']).toEqual(['first', 'second']);
    expect(answer.headers['x-request-id']).toBe('req_1');
    expect(await text(answer.body)).toBe('{"é":1}');
    expect(local.received[0]?.headers['content-length']).toBe(String(Buffer.byteLength('{"é":1}')));
    expect(local.received[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('names a connection closed before the answer, or in the middle of its body, ECONNCLOSED', async () => {
    const local = await listen((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        setImmediate(() => req.socket.destroy());
      } else {
        req.socket.destroy();
      }
    });
    transport = openTransport(local.origin, { maxHeaderBytes: 16 * 1024 });
    await expect(transport.request(request('/hang-up'))).rejects.toMatchObject({ code: CLOSED_BY_SERVER });
    const cut = await transport.request(request('/cut'));
    await expect(text(cut.body)).rejects.toMatchObject({ code: CLOSED_BY_SERVER });
  });

  it('refuses a head larger than maxHeaderBytes with HPE_HEADER_OVERFLOW', async () => {
    const local = await listen((_req, res) => {
      res.setHeader('x-filler', 'a'.repeat(4096));
      res.end('{}');
    });
    transport = openTransport(local.origin, { maxHeaderBytes: 1024 });
    await expect(transport.request(request('/'))).rejects.toMatchObject({ code: 'HPE_HEADER_OVERFLOW' });
  });

  it('stops at once when its signal aborts, while waiting for the head', async () => {
    const local = await listen(() => {
      // never answers
    });
    transport = openTransport(local.origin, { maxHeaderBytes: 16 * 1024 });
    const controller = new AbortController();
    const pending = transport.request({ ...request('/slow'), signal: controller.signal });
    await expect.poll(() => local.received.length).toBe(1);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
