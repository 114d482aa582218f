// sync --metrics bound to loopback (the default) answers only requests addressed to this machine
// by a loopback name, as the sandbox's /api/v1 and control API do (core/local-guard.ts): a web
// page whose own name resolves to 127.0.0.1 (DNS rebinding) must not read the metrics, nor
// /healthz with the last error's title.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Health, type MonitorServer, startMonitorServer } from '../../../src/sync/health.js';
import { fakeTime } from '../../helpers/clock.js';

let server: MonitorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** GET `path` from the server with this Host header: the status and body. */
function get(path: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, server?.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('sync --metrics bound to loopback', () => {
  it('refuses a request addressed to another name, and answers localhost and loopback addresses', async () => {
    const health = new Health(fakeTime().clock, 60_000);
    server = await startMonitorServer({ host: '127.0.0.1', port: 0 }, health, async () => ({
      contentType: 'text/plain',
      body: 'rfs_up 1\n',
    }));
    const port = new URL(server.url).port;
    for (const path of ['/metrics', '/healthz']) {
      for (const host of [`rebind.attacker.example:${port}`, 'rebind.attacker.example', '192.168.1.10']) {
        const refused = await get(path, host);
        expect({ path, host, status: refused.status }).toEqual({ path, host, status: 403 });
        expect(refused.body).not.toContain('rfs_up');
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'localhost']) {
      expect(await get('/metrics', host)).toEqual({ status: 200, body: 'rfs_up 1\n' });
    }
  });
});
