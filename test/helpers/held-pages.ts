// A list endpoint whose last page is held back until the test releases it: the proof that a
// command printed earlier pages while a later one was still unanswered (streaming). Serves
// `pages` in order, following `cursor=c<n>`; listens on 127.0.0.1, port 0.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { page } from './fixtures.js';

export interface HeldPages {
  readonly url: string;
  /** Every request target, in order. */
  readonly requests: string[];
  /** Resolves when the held (last) page has been asked for. */
  readonly lastAsked: Promise<void>;
  /** Answers the held page. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldPages(pages: unknown[][]): Promise<HeldPages> {
  const requests: string[] = [];
  const last = pages.length - 1;
  let held: ServerResponse | undefined;
  let released = false;
  let asked: () => void = () => undefined;
  const lastAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const answer = (res: ServerResponse, n: number): void => {
    const body = JSON.stringify(page(pages[n] ?? [], n < last ? `c${n + 1}` : null));
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  };
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
    const n = cursor === null ? 0 : Number(cursor.slice(1));
    if (n === last && !released) {
      held = res;
      asked();
      return;
    }
    answer(res, n);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    lastAsked,
    release() {
      released = true;
      if (held) answer(held, last);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves with the text of `stream` so far once it contains `text`. */
export function whenWritten(stream: NodeJS.EventEmitter, text: string): Promise<string> {
  let seen = '';
  return new Promise((resolve) => {
    const onData = (chunk: Buffer | string): void => {
      seen += String(chunk);
      if (seen.includes(text)) {
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
  });
}
