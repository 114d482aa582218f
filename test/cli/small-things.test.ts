// --json with another -o is exit 2; --filed-at takes a date as --updated-since
// does; --max-items 0 says what it wants; the retry countdown; -v stack traces point into src/;
// the sandbox shows its keys once on a terminal.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDown, runCli } from '../../src/cli/run.js';
import { isoFlag } from '../../src/commands/flags.js';
import { serve } from '../../src/commands/sandbox/run.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { runRfs } from '../helpers/child.js';
import { bufferIO, type BufferIOOptions } from '../helpers/io.js';

async function rfs(argv: string[], o: BufferIOOptions = {}) {
  const t = bufferIO(o);
  const code = await runCli(argv, t.io, { clock: fakeTime().clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('--json with another -o', () => {
  it.each([['ndjson'], ['table']])('--json -o %s is exit 2 and sends nothing', async (format) => {
    const r = await rfs(['recordings', 'list', '--json', '-o', format], {
      env: { RFS_API_KEY: 'service_pk_x1234', RFS_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--json contradicts -o ${format}`);
    expect(r.stdout).toBe('');
  });

  it('--json -o json agree', async () => {
    // config list reads only the (empty) config folder; completion, used here before, now
    // refuses every global flag (core/standalone.ts).
    const r = await rfs(['config', 'list', '--json', '-o', 'json'], { env: { RFS_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rfs-json-')) } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toBeTruthy();
  });
});

describe('--filed-at', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 7, recordings: 5 });
  });
  afterAll(() => sandbox.close());

  it('takes a date alone as local midnight, as --updated-since does (TZ=UTC here)', () => {
    expect(isoFlag('--filed-at', '2025-07-01')).toBe('2025-07-01T00:00:00.000Z');
    expect(isoFlag('--filed-at', '2025-07-01T09:30:00+02:00')).toBe('2025-07-01T09:30:00+02:00');
    expect(() => isoFlag('--filed-at', '2025-02-30')).toThrow(/or a date such as 2026-11-22/);
  });

  it('rfs file --filed-at 2025-07-01 is accepted and sent as that instant', async () => {
    const env = { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl };
    const list = await rfs(['recordings', 'list', '-o', 'json', '--limit', '1'], { env });
    const [first] = JSON.parse(list.stdout) as { id: string }[];
    const r = await rfs(['file', first?.id ?? '', '--provider', 'clio', '--external-id', 'x-1', '--filed-at', '2025-07-01', '-o', 'json'], {
      env,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('2025-07-01T00:00:00');
  });
});

describe('--max-items 0', () => {
  it('says "1 or more", not "from 1 or more"', async () => {
    const r = await rfs(['recordings', 'list', '--all', '--max-items', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid --max-items "0": expected a whole number, 1 or more');
  });

  it('a bounded range still says from … to …', async () => {
    const r = await rfs(['recordings', 'list', '--limit', '0']);
    expect(r.stderr).toMatch(/expected a whole number from 1 to 100/);
  });
});

describe('the retry countdown', () => {
  it('ticks once a second with the time left, the first tick on the second', async () => {
    const time = fakeTime();
    const seen: number[] = [];
    await countDown(time.clock, 5600, new AbortController().signal, (left) => seen.push(left));
    expect(seen).toEqual([5600, 5000, 4000, 3000, 2000, 1000]);
    expect(time.waits).toEqual([600, 1000, 1000, 1000, 1000, 1000]);
  });

  it('stops when the signal aborts', async () => {
    const time = fakeTime();
    const controller = new AbortController();
    const seen: number[] = [];
    await countDown(time.clock, 5000, controller.signal, (left) => {
      seen.push(left);
      if (seen.length === 2) controller.abort();
    });
    expect(seen).toEqual([5000, 4000]);
  });
});

describe('-v stack traces', () => {
  it('point into src/ through the shipped source maps', async () => {
    const r = await runRfs(['recordings', 'list', '-v', '--max-retries', '0'], {
      env: { RFS_API_KEY: 'service_pk_trace1234', RFS_BASE_URL: 'http://127.0.0.1:9', RFS_CONFIG_DIR: '/nonexistent-rfs' },
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/\n {4}at .*src\/api\/client\.ts:\d+:\d+/);
  });

  it('without -v there is no stack trace', async () => {
    const r = await runRfs(['recordings', 'list', '--max-retries', '0'], {
      env: { RFS_API_KEY: 'service_pk_trace1234', RFS_BASE_URL: 'http://127.0.0.1:9', RFS_CONFIG_DIR: '/nonexistent-rfs' },
    });
    expect(r.stderr).not.toMatch(/\n {4}at /);
  });
});

describe('rfs sandbox on a terminal', () => {
  async function started(o: BufferIOOptions) {
    const t = bufferIO(o);
    const controller = new AbortController();
    const done = serve(t.io, { port: '0', seed: '3' }, controller.signal);
    for (let i = 0; i < 200 && !t.stderr().includes('Ctrl-C to stop'); i++) await new Promise((r) => setTimeout(r, 25));
    controller.abort();
    expect(await done).toBe(0);
    return t;
  }

  it('shows the banner only: each key once', async () => {
    const t = await started({ stdoutIsTTY: true, stderrIsTTY: true });
    expect(t.stdout()).toBe('');
    const admin = /admin\s+(service_pk_\S+)/.exec(t.stderr())?.[1] ?? 'missing';
    expect(t.stderr().split(admin).length - 1).toBe(2); // the key list and the login line
  });

  it('off a terminal prints the one JSON line for programs', async () => {
    const t = await started({ stdoutIsTTY: false, stderrIsTTY: true });
    const line = JSON.parse(t.stdout()) as { baseUrl: string; apiKeys: Record<string, string> };
    expect(Object.keys(line.apiKeys)).toContain('webhooks');
    expect(t.stdout().trimEnd().split('\n')).toHaveLength(1);
  });
});
