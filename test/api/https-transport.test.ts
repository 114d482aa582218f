// The https path of the transport (api/transport.ts: node:https), the path of
// every real user: the built CLI against an https server on 127.0.0.1 whose self-signed
// certificate is made here with openssl. Trusted through NODE_EXTRA_CA_CERTS, one page is read
// over TLS; without it the certificate is refused (never sent anyway, never the key).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs } from '../helpers/child.js';
import { page, recording } from '../helpers/fixtures.js';

const KEY = 'service_pk_httpsPathKEY_0123456789';

let dir: string;
let server: Server;
let base: string;
const seen: { method: string; url: string; authorization: string | undefined; tls: boolean }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-https-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      tls: (req.socket as { encrypted?: boolean }).encrypted === true,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_https' });
    res.end(JSON.stringify(page([recording(1), recording(2)], null)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  RFS_CONFIG_DIR: join(dir, 'config'),
  RFS_API_KEY: KEY,
  RFS_BASE_URL: base,
  ...extra,
});

describe('rfs over https (node:https)', () => {
  it('reads a page over TLS from a server whose certificate is trusted through NODE_EXTRA_CA_CERTS', async () => {
    seen.length = 0;
    const run = await runRfs(['recordings', 'list', '-o', 'ndjson'], {
      env: env({ NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') }),
      timeoutMs: 30_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['rec_0001', 'rec_0002']);
    expect(seen).toEqual([
      { method: 'GET', url: expect.stringMatching(/^\/api\/v1\/recordings\?/), authorization: `Bearer ${KEY}`, tls: true },
    ]);
  }, 40_000);

  it('refuses the same server without the certificate trusted: a network error, exit 6, nothing read', async () => {
    seen.length = 0;
    const run = await runRfs(['recordings', 'list', '-o', 'ndjson'], { env: env(), timeoutMs: 30_000 });
    expect(run.code).toBe(6);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: GET \/api\/v1\/recordings\?\S+: TLS failure \(DEPTH_ZERO_SELF_SIGNED_CERT\) at 127\.0\.0\.1:\d+\n/);
    expect(run.stderr).not.toContain(KEY);
    expect(seen).toEqual([]);
  }, 40_000);
});
