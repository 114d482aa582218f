// A small scenario server for watch's memory: every list of deliveries it is
// asked for holds `perList` deliveries it never sent before, each with an error text of
// `errorBytes` characters, as a server in a long incident would. One subscription. Listens on
// 127.0.0.1 port 0; counts what it answered.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloodServer {
  url: string;
  /** Requests answered, and the deliveries sent in them. */
  stats(): { requests: number; deliveries: number };
  close(): Promise<void>;
}

export async function startFloodServer(o: { perList: number; errorBytes: number }): Promise<FloodServer> {
  let requests = 0;
  let deliveries = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1/webhooks') {
      return json({
        data: [{ id: 'wh_flood', url: 'http://127.0.0.1:9/flood', events: ['recording.completed'] }],
        meta: { nextCursor: null },
      });
    }
    if (url.pathname === '/api/v1/webhooks/deliveries') {
      const status = url.searchParams.get('status') ?? 'FAILED';
      const data = Array.from({ length: o.perList }, () => {
        deliveries += 1;
        const n = deliveries;
        return {
          id: `dlv_flood${n}`,
          status,
          subscriptionId: 'wh_flood',
          recordingId: `rec_${n}`,
          attempts: 3,
          lastAttemptAt: new Date().toISOString(),
          lastResponseStatus: 503,
          // A different text each time, so that no two are one string in memory.
          lastError: `${n} `.padEnd(o.errorBytes, 'x'),
        };
      });
      return json({ data, meta: { nextCursor: null } });
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ title: 'not here', status: 404, code: 'RESOURCE_NOT_FOUND', requestId: 'req_flood' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ requests, deliveries }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
