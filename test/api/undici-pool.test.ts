// src/api/undici-pool.ts loads undici's Pool and request() from its files, not its index (about
// 40 ms of start-up: bench/README.md). These fail when a new undici moves those files or changes
// what its index sets up, so that an upgrade is a failed test and not a broken or slower rfs.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `source` in a fresh Node, where nothing has loaded undici's index yet. */
function inFreshNode(source: string): unknown {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout);
}

describe("undici's files, as undici-pool.ts loads them", () => {
  it('are the Pool and request() that the index exports', () => {
    const facts = inFreshNode(`
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url + '/');
      const Pool = require('undici/lib/dispatcher/pool.js');
      const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
      const request = require('undici/lib/api/api-request.js');
      const undici = require('undici');
      const api = require('undici/lib/api/index.js');
      console.log(JSON.stringify({
        pool: undici.Pool === Pool,
        dispatcher: undici.Dispatcher === Dispatcher,
        request: api.request === request,
        // The index puts the request API on every dispatcher: undici-pool.ts does the same.
        onPrototype: Dispatcher.prototype.request === request,
        poolIsDispatcher: Pool.prototype instanceof Dispatcher,
      }));`);
    expect(facts).toEqual({ pool: true, dispatcher: true, request: true, onPrototype: true, poolIsDispatcher: true });
  });

  it('give a pool that requests without the index loaded', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      // Asynchronous: this process serves the request.
      const r = await promisify(execFile)(
        process.execPath,
        [
          '-e',
          `const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
           Dispatcher.prototype.request ??= require('undici/lib/api/api-request.js');
           const Pool = require('undici/lib/dispatcher/pool.js');
           const pool = new Pool('http://127.0.0.1:${port}');
           pool.request({ path: '/', method: 'GET' }).then(async (res) => {
             const body = await res.body.json();
             const index = Object.keys(require.cache).some((f) => f.endsWith('undici/index.js'));
             console.log(JSON.stringify({ status: res.statusCode, body, index }));
             await pool.close();
           });`,
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 10_000 },
      );
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ status: 200, body: { ok: true }, index: false });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
