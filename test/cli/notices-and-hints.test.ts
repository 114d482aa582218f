// Notices and hints, against the quick start's sandbox (`--seed 42`): what a user trips on.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 42, rateLimit: 0 });
});
afterAll(() => sandbox.close());

async function rfs(args: string[], o: { key?: string; env?: NodeJS.ProcessEnv; stdin?: string; tty?: boolean } = {}) {
  const t = bufferIO({
    env: { RFS_API_KEY: o.key ?? sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl, ...o.env },
    stdin: o.stdin,
    stdoutIsTTY: o.tty,
  });
  const code = await runCli(args, t.io, { clock: fakeTime().clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('notices and hints a user trips on', () => {
  it('5: auth login with a key of a workspace without a plan warns of the plan only, not of a missing scope', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rfs-login-'));
    const run = await rfs(['auth', 'login', '--with-key', '--base-url', sandbox.baseUrl], {
      stdin: sandbox.apiKeys.noSubscription,
      env: { RFS_API_KEY: '', RFS_CONFIG_DIR: dir },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/warning: the workspace has no eligible Pro or Enterprise plan yet \(SUBSCRIPTION_REQUIRED\); saved anyway/);
    expect(run.stderr).not.toMatch(/lacks|cannot read recordings/);
  });

  it('6: a list cut by --max-items within a page says more results exist, and how to get a cursor', async () => {
    const cut = await rfs(['recordings', 'list', '--max-items', '3', '-o', 'json']);
    expect(cut.code).toBe(0);
    expect(JSON.parse(cut.stdout)).toHaveLength(3);
    expect(cut.stderr).toMatch(/more results: stopped at --max-items 3 within a page, where no cursor can resume; add --limit 3/);
    // Following the advice: the page ends at the cut, and its cursor is offered.
    const paged = await rfs(['recordings', 'list', '--max-items', '3', '--limit', '3', '-o', 'json']);
    expect(paged.stderr).toMatch(/more results: every page with --all, the next with --cursor \S+/);
    // All of a short list: nothing more to say.
    const whole = await rfs(['recordings', 'list', '--max-items', '500', '-o', 'json']);
    expect(whole.stderr).not.toMatch(/more results/);
  });

  it("7: --jq '.data[] | .id' (gh's habit) fails with the hint that the program runs on each item", async () => {
    const run = await rfs(['recordings', 'list', '--limit', '2', '--jq', '.data[] | .id']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Cannot iterate over null/);
    expect(run.stderr).toMatch(/the program runs on each item, not on the whole answer: --jq '\.id', not --jq '\.data\[\] \| \.id'/);
    // rfs api gives jq the whole answer: there `.data[]` is right, and works.
    const api = await rfs(['api', 'recordings?limit=2', '--jq', '.data[] | .id']);
    expect(api.code, api.stderr).toBe(0);
    expect(api.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('8: a blank --provider is called blank, not missing', async () => {
    const run = await rfs(['file', 'rec_yoWprbjQgmcGOvWk', '--provider', '   ', '--external-id', 'X']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--provider is blank/);
    expect(run.stderr).not.toMatch(/is required/);
    const missing = await rfs(['file', 'rec_yoWprbjQgmcGOvWk', '--external-id', 'X']);
    expect(missing.stderr).toMatch(/--provider is required/);
  });

  it("8: --include content keeps a block's heading apart from its text", async () => {
    const run = await rfs(['recordings', 'list', '--limit', '5', '--include', 'content', '-o', 'table'], { env: { COLUMNS: '400' } });
    expect(run.code, run.stderr).toBe(0);
    const details = run.stdout.split('\n').filter((l) => /^\s{2,}\S/.test(l));
    expect(details.length).toBeGreaterThan(0);
    // The sandbox's notes start with a heading (`Summary`, `Meeting summary`…) then a paragraph.
    expect(
      details.some((l) => / — /.test(l)),
      details.join('\n'),
    ).toBe(true);
    expect(details.join('\n')).not.toMatch(/\bSummary The\b/);
  });
});
