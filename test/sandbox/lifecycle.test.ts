import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { start } from './helpers.js';

describe('close()', () => {
  it('lets a request in flight finish before the server stops', async () => {
    const h = await start({ rateLimit: 0 });
    await h.control('/faults', { rate: 1, kinds: ['delay'], delayMs: 400 });
    const inFlight = h.api('/recordings?limit=1');
    await new Promise((r) => setTimeout(r, 100));
    await h.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json.data).toHaveLength(1);
    await expect(fetch(`${h.base}/api/v1/recordings`)).rejects.toThrow();
  });

  // In a child process of its own: if close() left a server, socket or timer (the delivery's
  // one-minute retry) behind, the process would not exit by itself.
  it('leaves nothing running: the process exits on its own, even with a delivery waiting for its retry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rfs-sandbox-close-'));
    try {
      const script = join(dir, 'child.ts');
      const sandbox = fileURLToPath(new URL('../../src/sandbox/index.ts', import.meta.url));
      await writeFile(
        script,
        `import { createServer } from 'node:http';
import { startSandbox } from ${JSON.stringify(sandbox)};
const receiver = createServer((req, res) => { req.resume(); res.writeHead(500).end(); hits++; });
let hits = 0;
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const url = 'http://127.0.0.1:' + receiver.address().port + '/hook';
const sb = await startSandbox({ port: 0, seed: 'child', deliveryBackoffMs: 60000 });
const post = (path, body, headers = {}) => fetch(sb.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
await post('/api/v1/webhooks', { url, events: ['recording.completed'] }, { authorization: 'Bearer ' + sb.apiKeys.admin, 'idempotency-key': 'child-key-1' });
await post('/_sandbox/recordings', { status: 'COMPLETED' });
while (hits === 0) await new Promise((r) => setTimeout(r, 20));
await sb.close();
receiver.close();
console.log('closed after ' + hits + ' attempt');
`,
      );
      const out = join(dir, 'child.mjs');
      await build({
        entryPoints: [script],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: out,
        logLevel: 'silent',
        define: { RFS_VERSION: '"test"' },
      });
      const result = await new Promise<{ code: number | null; stdout: string; timedOut: boolean }>((resolve) => {
        const child = execFile(process.execPath, [out], { timeout: 8000 }, (error, stdout) => {
          resolve({ code: child.exitCode, stdout, timedOut: error?.signal === 'SIGTERM' });
        });
      });
      expect(result.timedOut).toBe(false);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe('closed after 1 attempt');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 15_000);
});
