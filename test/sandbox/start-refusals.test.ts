// A sandbox that cannot work as asked is refused at start: the CLI exits 2, the
// library's promise rejects. Before, it served anyway and the trouble showed only later.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxStartError, startSandbox } from '../../src/sandbox/index.js';
import { runRfs } from '../helpers/child.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Item 4: every change answered 500 yet stayed in memory, and SIGTERM exited 0 having saved nothing.
describe('--data in a folder that does not exist', () => {
  it('is refused by startSandbox, naming the folder', async () => {
    const file = join(dir, 'missing', 'x.json');
    const error = await startSandbox({ port: 0, seed: 's', dataFile: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toBe(`cannot write the data file ${file}: its folder ${join(dir, 'missing')} does not exist`);
  });

  it('is refused when the folder is a file, before anything is written', async () => {
    const plain = join(dir, 'plain-file');
    await writeFile(plain, 'not a folder');
    const error = await startSandbox({ port: 0, seed: 's', dataFile: join(plain, 'x.json') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxStartError);
    expect((error as Error).message).toBe(`cannot write the data file ${join(plain, 'x.json')}: ${plain} is not a folder`);
  });

  it('makes rfs sandbox exit 2 before it prints its JSON line, and logs no failed write', async () => {
    const file = join(dir, 'nowhere', 'x.json');
    const run = await runRfs(['sandbox', '--port', '0', '--seed', '1', '--data', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`cannot write the data file ${file}: its folder ${join(dir, 'nowhere')} does not exist`);
    expect(run.stderr).not.toContain('could not save');
  });
});

// Item 16: options of the wrong type were taken (String({}) became the seed "[object Object]"),
// and a clock answering NaN left an unhandled rejection at the first request.
describe('startSandbox options', () => {
  it.each([
    ['a seed that is an object', { seed: {} }, 'sandbox option seed must be a non-empty string or a finite number (got an object)'],
    ['a seed that is NaN', { seed: Number.NaN }, 'sandbox option seed must be a non-empty string or a finite number (got NaN)'],
    ['a port given as text', { port: '4010' }, 'sandbox option port must be a number (got "4010")'],
    ['a clock that is not a function', { now: 5 }, 'sandbox option now must be a function (got 5)'],
    [
      'fixtures that are a number',
      { fixtures: 3 },
      'sandbox option fixtures must be a file name, a state object or a list of recordings (got 3)',
    ],
    ['an unknown option', { recording: 5 }, /^unknown sandbox option recording; the options are host, port, seed, recordings,/],
  ])('refuses %s with a TypeError', async (_name, options, message) => {
    const error = await startSandbox({ port: 0, ...(options as object) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a clock that does not answer a finite time with a RangeError, at start', async () => {
    const error = await startSandbox({ port: 0, now: () => Number.NaN }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe('sandbox option now must return milliseconds since 1970 as a finite number (got NaN)');
  });

  it('answers 500 when the clock fails later, and leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    let broken = false;
    const logs: string[] = [];
    const sandbox = await startSandbox({ port: 0, seed: 'clock', now: () => (broken ? Number.NaN : Date.now()), log: (l) => logs.push(l) });
    try {
      broken = true;
      const res = await fetch(`${sandbox.baseUrl}/api/v1/recordings`, { headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` } });
      expect(res.status).toBe(500);
      // A rejection is reported after the microtasks of its turn: one more turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(logs.join('\n')).toContain('sandbox option now must return milliseconds');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await sandbox.close();
    }
  });
});

// Item 16: HEAD and OPTIONS on API paths answered 404.
describe('HEAD and OPTIONS', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'methods', rateLimit: 0 });
  });
  afterAll(() => sandbox.close());
  const auth = () => ({ authorization: `Bearer ${sandbox.apiKeys.admin}` });

  it('answers HEAD as GET, with the same status and headers and no body', async () => {
    const get = await fetch(`${sandbox.baseUrl}/api/v1/recordings?limit=2`, { headers: auth() });
    const head = await fetch(`${sandbox.baseUrl}/api/v1/recordings?limit=2`, { method: 'HEAD', headers: auth() });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(await get.text())));
    expect(await head.text()).toBe('');
    // As GET is: a key is needed, and an unknown id is 404.
    expect((await fetch(`${sandbox.baseUrl}/api/v1/recordings`, { method: 'HEAD' })).status).toBe(401);
    expect((await fetch(`${sandbox.baseUrl}/api/v1/recordings/rec_none`, { method: 'HEAD', headers: auth() })).status).toBe(404);
  });

  it.each([
    ['/api/v1/recordings', 'GET, HEAD, OPTIONS'],
    ['/api/v1/recordings/rec_x/filings', 'POST, OPTIONS'],
    ['/api/v1/webhooks', 'GET, HEAD, POST, OPTIONS'],
    ['/api/v1/webhooks/wh_x', 'DELETE, OPTIONS'],
    ['/_sandbox/state', 'GET, HEAD, PUT, OPTIONS'],
  ])('answers OPTIONS %s with 204 and Allow: %s, no key needed', async (path, allow) => {
    const res = await fetch(`${sandbox.baseUrl}${path}`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('answers OPTIONS on a path that is no endpoint with 404', async () => {
    expect((await fetch(`${sandbox.baseUrl}/api/v1/nothing-here`, { method: 'OPTIONS' })).status).toBe(404);
  });
});
