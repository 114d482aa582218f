// Helpers for the webhooks listen tests: raw HTTP requests (exact bytes, exact headers), an
// HMAC computed here with node:crypto (independently of src/shared/signature.ts), and port checks.
import { createHmac } from 'node:crypto';
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';
import { connect, createServer } from 'node:net';

export function hmacHex(secret: string, timestamp: string | number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex');
}

export const signed = (secret: string, timestamp: string | number, body: string | Buffer): string =>
  `sha256=${hmacHex(secret, timestamp, body)}`;

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request over node:http with the headers and body bytes exactly as given. */
export function send(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: Buffer | string; agent?: Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'POST', headers: o.headers ?? {}, agent: o.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Whether anything accepts a TCP connection on 127.0.0.1:port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port that was free a moment ago (bound on port 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether this process can bind 127.0.0.1:port now (the port is released again at once). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
