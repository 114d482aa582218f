// the keyless control API. It stays keyless for tests on this machine, but
// the seed (from which every key can be rebuilt) is left out of an exported state unless asked
// for, a request addressed by a name that is not this machine's (DNS rebinding) is refused, and
// so is a web page's request (CSRF): another Origin, or a change not sent as application/json.
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { controlGuard } from '../../src/sandbox/control-guard.js';
import { ProblemError } from '../../src/sandbox/problem.js';
import { start, type Harness } from './helpers.js';

let h: Harness;
let port: string;
beforeAll(async () => {
  h = await start({ seed: 'guarded', rateLimit: 0, recordings: 5 });
  port = new URL(h.base).port;
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.control.reset());

/** A request with exactly these headers (fetch would set Host and Origin itself). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: { code?: string; detail?: string } | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A filing, which a reset would undo: the witness that a refused reset changed nothing. */
async function fileOne(externalId: string): Promise<string> {
  const id = (await h.api('/recordings?limit=1')).json.data[0].id as string;
  expect((await h.api(`/recordings/${id}/filings`, { body: { provider: 'guard', externalId } })).status).toBe(200);
  return id;
}
const syncCount = async (id: string): Promise<number> => (await h.api(`/recordings/${id}`)).json.data.syncCount;

describe('GET /_sandbox/state and the seed', () => {
  it('leaves the seed out unless ?includeSeed=1 asks for it', async () => {
    const plain = await h.control('/state');
    expect(plain.status).toBe(200);
    expect(plain.json).not.toHaveProperty('seed');
    expect(plain.text).not.toContain('guarded');
    const withSeed = await h.control('/state?includeSeed=1');
    expect(withSeed.json.seed).toBe('guarded');
    expect((await h.control('/state?includeSeed=yes')).status).toBe(400);
  });

  it('takes a state exported without its seed back, as made by this sandbox', async () => {
    const id = await fileOne('G-state');
    const exported = (await h.control('/state')).json;
    await h.control('/reset', {});
    expect(await syncCount(id)).toBe(0);
    expect((await h.control('/state', exported, 'PUT')).status).toBe(204);
    expect(await syncCount(id)).toBe(1);
  });

  it('starts from a seedless state as fixtures under the same --seed, with the same keys and filings', async () => {
    const id = await fileOne('G-fixtures');
    const exported = (await h.sandbox.control.exportState()) as Record<string, unknown>;
    expect(exported).not.toHaveProperty('seed');
    const again = await start({ seed: 'guarded', fixtures: exported as never });
    try {
      expect(again.keys).toEqual(h.keys);
      expect((await again.api(`/recordings/${id}`)).json.data.syncCount).toBeGreaterThan(0);
    } finally {
      await again.close();
    }
  });

  it('hands the seed to a library caller who asks for it', async () => {
    expect((await h.sandbox.control.exportState({ includeSeed: true })).seed).toBe('guarded');
  });
});

describe('Host: only names of this machine (DNS rebinding)', () => {
  it.each([
    ['a name rebound to 127.0.0.1', 'attacker.example'],
    ['a name with a port', `attacker.example:${'4010'}`],
    ['a name that ends in a loopback address', '127.0.0.1.nip.io'],
    ['a name that starts like localhost', 'localhost.evil.example'],
  ])('refuses %s with 403 CONTROL_REFUSED, reading nothing and changing nothing', async (_name, host) => {
    const id = await fileOne(`G-host-${host}`);
    const read = await send('GET', '/_sandbox/state?includeSeed=1', { host });
    expect(read.status).toBe(403);
    expect(read.json?.code).toBe('CONTROL_REFUSED');
    expect(JSON.stringify(read.json)).not.toContain('"seed"');
    const reset = await send('POST', '/_sandbox/reset', { host, 'content-type': 'application/json' }, '{}');
    expect(reset.status).toBe(403);
    expect(await syncCount(id)).toBe(1);
  });

  it.each([`127.0.0.1:${'PORT'}`, 'localhost:PORT', 'LOCALHOST:PORT', '[::1]:PORT', 'api.localhost:PORT', '127.0.0.1'])(
    'answers Host %s',
    async (host) => {
      expect((await send('GET', '/_sandbox/health', { host: host.replace('PORT', port) })).status).toBe(200);
    },
  );

  it('applies its Host rule to /api/v1 too, bound to loopback (api-host.test.ts)', async () => {
    const res = await send('GET', '/api/v1/recordings?limit=1', { host: 'api.example.com', authorization: `Bearer ${h.keys.admin}` });
    expect(res.status).toBe(403);
    expect(res.json?.code).toBe('HOST_REFUSED');
  });

  it('answers the --host it was bound to, and any IP address when bound to a wildcard', () => {
    const named = controlGuard('sandbox.internal');
    const check = (guard: typeof named, host: string) => () => guard('GET', { host }, false);
    expect(check(named, 'sandbox.internal:4010')).not.toThrow();
    expect(check(named, 'localhost:4010')).not.toThrow();
    expect(check(named, '10.0.0.5:4010')).toThrow(ProblemError);
    expect(check(named, 'evil.example:4010')).toThrow(ProblemError);
    const wildcard = controlGuard('0.0.0.0');
    expect(check(wildcard, '10.0.0.5:4010')).not.toThrow();
    expect(check(wildcard, '[fd00::5]:4010')).not.toThrow();
    expect(check(wildcard, 'evil.example:4010')).toThrow(ProblemError);
  });
});

describe('web pages (CSRF)', () => {
  it('refuses a reset from another origin, even without a content type, and resets nothing', async () => {
    const id = await fileOne('G-csrf');
    const res = await send('POST', '/_sandbox/reset', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'CONTROL_REFUSED' });
    expect(res.json?.detail).toContain('Origin: "http://evil.example"');
    expect(await syncCount(id)).toBe(1);
  });

  it.each([
    ['a page of another port on this machine', { origin: 'http://127.0.0.1:3000' }],
    ['a sandboxed page', { origin: 'null' }],
    ['a request a browser marks cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['a request a browser marks same-site', { 'sec-fetch-site': 'same-site' }],
  ])('refuses %s', async (_name, headers) => {
    const res = await send('POST', '/_sandbox/reset', { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers }, '{}');
    expect(res.status).toBe(403);
  });

  it.each([
    ['no content type and no body', {}, undefined],
    ['text/plain, as a form or a simple fetch sends', { 'content-type': 'text/plain' }, '{}'],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1'],
  ])('refuses a change sent with %s: 415, nothing reset', async (_name, headers, body) => {
    const id = await fileOne(`G-type-${_name}`);
    const res = await send('POST', '/_sandbox/reset', { host: `127.0.0.1:${port}`, ...headers }, body);
    expect(res.status).toBe(415);
    expect(res.json?.code).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(await syncCount(id)).toBe(1);
  });

  it("answers the sandbox's own page and a JSON change without Origin (curl, the control client)", async () => {
    const own = await send('GET', '/_sandbox/health', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      'sec-fetch-site': 'same-origin',
    });
    expect(own.status).toBe(200);
    const id = await fileOne('G-own');
    expect((await send('POST', '/_sandbox/reset', { host: `127.0.0.1:${port}`, 'content-type': 'application/json' })).status).toBe(204);
    expect(await syncCount(id)).toBe(0);
    await h.sandbox.control.reset();
    await h.sandbox.control.saveSnapshot('guarded');
    await h.sandbox.control.restoreSnapshot('guarded');
    expect((await h.sandbox.control.health()).status).toBe('ok');
  });
});
