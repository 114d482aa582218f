// `deliveries list --since/--until` select by a delivery's last attempt (cli.md, deliveries):
// on a terminal the table keeps LAST ATTEMPT then, at 80 columns too, so that what selected the
// rows can be seen on them (without a time filter it is the first column to go). json is the
// same with or without it. Against `rfs sandbox --scenario incident`, whose lists come back full.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { displayWidth } from '../../../../src/output/table.js';
import { type RunningSandbox, startSandbox } from '../../../../src/sandbox/index.js';
import { bufferIO } from '../../../helpers/io.js';

let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-list-by-attempt-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function rfs(args: string[], columns = 80): Promise<{ code: number; stdout: string; stderr: string }> {
  const t = bufferIO({
    stdoutIsTTY: true,
    columns,
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, 'state'),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
  });
  const code = await runCli(['--rate', '0', ...args], t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

/** The table's header cells and its rows. */
function table(stdout: string): { headers: string[]; rows: string[] } {
  const [header = '', ...rows] = stdout.trimEnd().split('\n');
  return { headers: header.trim().split(/ {2,}/), rows };
}

/** `12m ago` in minutes; seconds and hours too. */
function minutesAgo(age: string): number {
  const m = /^(\d+)([smhd]) ago$/.exec(age);
  if (m === null) throw new Error(`not an age: ${age}`);
  const n = Number(m[1]);
  return { s: n / 60, m: n, h: n * 60, d: n * 1440 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

describe('deliveries list selected by attempt time, at 80 columns', () => {
  it('without a time filter, LAST ATTEMPT is the first column to go at 80', async () => {
    const r = await rfs(['deliveries', 'list', '--status', 'FAILED']);
    expect(r.code).toBe(0);
    expect(table(r.stdout).headers).not.toContain('LAST ATTEMPT');
  });

  for (const args of [
    ['--since', '30m'],
    ['--status', 'FAILED', '--since', '30m', '--error', '503'],
    ['--until', '30m'],
  ]) {
    it(`${args.join(' ')}: LAST ATTEMPT on every row, within what was selected`, async () => {
      const r = await rfs(['deliveries', 'list', ...args]);
      expect(r.code, r.stderr).toBe(0);
      const { headers, rows } = table(r.stdout);
      expect(headers, r.stdout).toContain('LAST ATTEMPT');
      expect(rows.length).toBeGreaterThan(0);
      const at = r.stdout.split('\n')[0]?.indexOf('LAST ATTEMPT') ?? -1;
      for (const row of rows) {
        expect(displayWidth(row), row).toBeLessThanOrEqual(80);
        const age = minutesAgo(row.slice(at).split(/ {2,}/)[0] ?? '');
        // Ages are shown in whole units: 30m ago reads 30m, a delivery 31 minutes old 31m.
        if (args.includes('--since')) expect(age, row).toBeLessThanOrEqual(30);
        else expect(age, row).toBeGreaterThanOrEqual(30);
      }
    });
  }

  it('replay --all-failed --dry-run --since keeps LAST ATTEMPT at 80 too', async () => {
    const r = await rfs(['deliveries', 'replay', '--all-failed', '--dry-run', '--since', '30m']);
    expect(r.code, r.stderr).toBe(0);
    expect(table(r.stdout).headers, r.stdout).toContain('LAST ATTEMPT');
  });

  it('json is the same rows, fields as the API gave them, with or without the column', async () => {
    const r = await rfs(['deliveries', 'list', '--since', '30m', '-o', 'json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(0);
    for (const d of rows) expect(Object.keys(d).sort()).toEqual(expect.arrayContaining(['id', 'lastAttemptAt', 'status']));
    expect(rows.some((d) => 'LAST ATTEMPT' in d || 'lastAttempt' in d)).toBe(false);
  });
});
