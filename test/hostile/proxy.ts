// A forwarding proxy on 127.0.0.1:0 in front of the in-process sandbox, which holds the requests
// a test picks (answering them never), so that Ctrl-C can land during exactly that request while
// every other request gets the sandbox's real answer.
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request, forwarded or held, in arrival order. */
  requests: { method: string; url: string; held: boolean }[];
  close(): Promise<void>;
}

/** `hold(req, n)` decides for the n-th request (from 1) whether it is held instead of forwarded. */
export async function startHoldingProxy(target: string, hold: (req: IncomingMessage, n: number) => boolean): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const requests: HoldingProxy['requests'] = [];
  const server = createServer((req, res) => {
    const held = hold(req, requests.length + 1);
    requests.push({ method: req.method ?? '', url: req.url ?? '', held });
    if (held) {
      // Read and drop the body; never answer. close() ends the connection.
      req.resume();
      return;
    }
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
