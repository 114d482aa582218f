// deliveries replay --wait (cli.md, deliveries) against a real sandbox whose
// receiver answers per delivery: all SUCCEEDED → 0; one FAILED again → 8; one still PENDING
// when the timeout passes → 8, named. And the --all-failed confirmation shows the --dry-run
// table. The CLI's clock is fake: the timeout passes without waiting for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { bufferIO, type BufferIOOptions } from '../../../helpers/io.js';
import { deliveringTime, sandboxWithFailed, type FailedSandbox } from '../support.js';

let h: FailedSandbox;
let configDir: string;

beforeEach(async () => {
  h = await sandboxWithFailed(3);
  configDir = mkdtempSync(join(tmpdir(), 'rfs-replay-wait-'));
});
afterEach(async () => {
  await h.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** `at`: the run's clock starts there (two runs whose tables of ages are compared start at one instant). */
async function replay(args: string[], io: BufferIOOptions = {}, at?: number) {
  const t = bufferIO({
    ...io,
    env: { RFS_CONFIG_DIR: configDir, RFS_API_KEY: h.sandbox.apiKeys.admin, RFS_BASE_URL: h.sandbox.baseUrl, NO_COLOR: '1' },
  });
  // As process.stderr, which the prompt's end() does not close (inquirer ends its output stream).
  t.io.stderr.end = (() => t.io.stderr) as typeof t.io.stderr.end;
  const time = deliveringTime();
  if (at !== undefined) time.advance(at - time.now);
  const code = await runCli(['deliveries', 'replay', ...args], t.io, { clock: time.clock });
  const lines = t
    .stdout()
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { id: string; ok: boolean; finalStatus?: string | null; error?: { title: string } });
  return { code, lines, stdout: t.stdout(), stderr: t.stderr(), time };
}

const finals = (lines: { id: string; finalStatus?: string | null }[]) =>
  Object.fromEntries(lines.filter((l) => l.finalStatus !== undefined).map((l) => [l.id, l.finalStatus]));

describe('deliveries replay --wait', () => {
  it('exits 0 when every replayed delivery SUCCEEDED, printing each final status', async () => {
    h.receiver.answer = () => 200;
    const [a, b, c] = h.failed as [string, string, string];
    const { code, lines, stderr } = await replay([a, b, c, '--wait', '-o', 'ndjson']);
    expect(code).toBe(0);
    expect(finals(lines)).toEqual({ [a]: 'SUCCEEDED', [b]: 'SUCCEEDED', [c]: 'SUCCEEDED' });
    expect(stderr).toMatch(/^waited \d+ s: 3 SUCCEEDED, 0 FAILED again$/m);
  });

  it('exits 8 when one FAILED again, naming it', async () => {
    const [a, b, c] = h.failed as [string, string, string];
    h.receiver.answer = (id) => (id === b ? 503 : 200);
    const { code, lines, stderr } = await replay([a, b, c, '--wait', '-o', 'ndjson']);
    expect(code).toBe(8);
    expect(finals(lines)).toEqual({ [a]: 'SUCCEEDED', [b]: 'FAILED', [c]: 'SUCCEEDED' });
    expect(lines.find((l) => l.id === b && l.finalStatus)?.error?.title).toBe('HTTP 503');
    expect(stderr).toMatch(/^waited \d+ s: 2 SUCCEEDED, 1 FAILED again$/m);
  });

  it('exits 8 when the timeout passes first, naming those whose outcome is not known, never as FAILED', async () => {
    const [a, b, c] = h.failed as [string, string, string];
    h.receiver.answer = (id) => (id === c ? 'hang' : 200);
    const { code, lines, stderr, time } = await replay([a, b, c, '--wait', '--wait-timeout', '20', '-o', 'ndjson']);
    expect(code).toBe(8);
    expect(finals(lines)).toEqual({ [a]: 'SUCCEEDED', [b]: 'SUCCEEDED', [c]: null });
    expect(lines.find((l) => l.id === c && l.finalStatus === null)).toMatchObject({
      ok: false,
      known: false,
      why: 'still PENDING: neither the SUCCEEDED nor the FAILED list shows it',
    });
    expect(stderr).toContain(`1 not known after 20 s (--wait-timeout): ${c}\n`);
    // Polled on the fake clock within the budget (12 a minute: two lists a poll, about 10 s
    // apart), up to the 20 s: no real wait of that length.
    expect(time.waits.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(20_000);
    expect(time.waits.filter((ms) => ms >= 10_000).length).toBeGreaterThanOrEqual(1);
  });

  it('is refused without a replay to wait for (--dry-run) or with --wait-timeout alone', async () => {
    expect((await replay(['--all-failed', '--dry-run', '--wait'])).code).toBe(2);
    expect((await replay([h.failed[0] ?? '', '--wait-timeout', '5'])).code).toBe(2);
    expect((await replay([h.failed[0] ?? '', '--max', '5'])).code).toBe(2);
    expect(await h.sandbox.control.requests()).toEqual([]);
  });
});

describe('deliveries replay --all-failed confirmation', () => {
  it('shows the --dry-run table, whole ids in columns, not a comma-joined list', async () => {
    const terminal = { stdinIsTTY: true, stderrIsTTY: true, stdoutIsTTY: true, columns: 120, stdin: 'n\n' };
    const at = Date.now();
    const asked = await replay(['--all-failed'], terminal, at);
    const dry = await replay(['--all-failed', '--dry-run'], { stdoutIsTTY: true, columns: 120 }, at);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toContain('Nothing replayed.');
    // The table on stderr is the one --dry-run prints on stdout, row for row.
    const table = dry.stdout.trimEnd().split('\n');
    expect(table[0]).toMatch(/^ID\s+STATUS\s+SUBSCRIPTION/);
    expect(table).toHaveLength(4);
    for (const line of table) expect(asked.stderr).toContain(line);
    expect(asked.stderr).not.toContain(', dlv_');
    expect(asked.stderr).toContain('Replay these 3 FAILED deliveries?');
    expect((await h.sandbox.control.requests()).filter((r) => r.method === 'POST')).toEqual([]);
  });
});
