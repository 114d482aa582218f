// Every stderr message wraps at words on a terminal (cli.md, Output): the summaries of
// `deliveries replay` (and its --wait) and `webhooks listen`'s lines, which --quiet keeps, are
// laid out by the same wrap as the notices and the config warning, never cut mid-word by the
// terminal (`(at most 50 row|s)`, `--wait-tim|eout`, `del|eted`). Against
// `rfs sandbox --scenario incident`, whose FAILED list comes back full, at 80 columns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { displayWidth } from '../../src/output/table.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { bufferIO } from '../helpers/io.js';

const COLUMNS = 80;
let sandbox: RunningSandbox;
let home: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
  home = mkdtempSync(join(tmpdir(), 'rfs-stderr-wrap-'));
}, 60_000);
afterAll(async () => {
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function terminal() {
  return bufferIO({
    stderrIsTTY: true,
    columns: COLUMNS,
    env: {
      NO_COLOR: '1',
      XDG_STATE_HOME: join(home, 'state'),
      RFS_CONFIG_DIR: join(home, 'config'),
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
    },
  });
}

/** Each line fits the terminal, and each phrase reads whole once the lines are joined. */
function expectWrappedAtWords(stderr: string, phrases: (string | RegExp)[]): void {
  const lines = stderr.replace(/\n$/, '').split('\n');
  for (const line of lines) expect(displayWidth(line), `${line}\n(in)\n${stderr}`).toBeLessThanOrEqual(COLUMNS);
  const joined = lines.join(' ');
  for (const phrase of phrases) {
    if (typeof phrase === 'string') expect(joined, stderr).toContain(phrase);
    else expect(joined, stderr).toMatch(phrase);
  }
}

describe('stderr summaries at 80 columns', () => {
  it('replay --all-failed --wait: the rounds and the wait summaries wrap at words', async () => {
    const t = terminal();
    // The failing receiver still fails: the replays stay PENDING past a 1 s --wait-timeout.
    const code = await runCli(
      [
        'deliveries',
        'replay',
        '--all-failed',
        '--since',
        '30m',
        '--error',
        '503',
        '--yes',
        '--wait',
        '--wait-timeout',
        '1',
        '--rate',
        '0',
        '-q',
      ],
      t.io,
    );
    expect(code).toBe(8);
    const stderr = t.stderr();
    const notKnown = /; (\d+) not known after 1 s \(--wait-timeout\): /.exec(stderr.replaceAll('\n', ' '));
    expect(notKnown, stderr).not.toBeNull();
    const ids = stderr.match(/dlv_\w+/g) ?? [];
    expect(ids.length).toBe(Number(notKnown?.[1]));
    expectWrappedAtWords(stderr, [
      // What the list showed, and no more (its older rows match no --since 30m): cli.md, "Evidence, not inference".
      /more may remain: the FAILED list of wh_\w+ came back full \(50 rows, the most the API lists\) and showed no FAILED delivery matching --since \S+ --error "503" that this run had not replayed; older ones may sit behind it/,
      /^\d+ replayed, 0 failed; \d+ rounds?;/,
      'not known after 1 s (--wait-timeout): dlv_',
      // Every id whole (the service's are dlv_ and 20 characters).
      ...ids.map((id) => new RegExp(`(^| )${id}(,|$)`)),
    ]);
    for (const id of ids) expect(id).toMatch(/^dlv_\w{20}$/);
  }, 120_000);

  it('webhooks listen --subscribe: the secret line wraps at words, the secret whole', async () => {
    const t = terminal();
    const controller = new AbortController();
    const done = runCli(['webhooks', 'listen', '--subscribe', '--port', '0'], t.io, { signal: controller.signal });
    const deadline = Date.now() + 15_000;
    while (!t.stderr().includes('Ctrl-C to stop')) {
      if (Date.now() > deadline) throw new Error(`listen did not start: ${t.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    expect(await done).toBe(0);
    const stderr = t.stderr();
    const secret = /whsec_\w+/.exec(stderr)?.[0] ?? '';
    expect(secret).toMatch(/^whsec_\w{32}$/);
    expectWrappedAtWords(stderr, [
      /^listening on http:\/\/127\.0\.0\.1:\d+ subscribed wh_\w+ to http:\/\/127\.0\.0\.1:\d+\/rfs-listen-/,
      `(shown only this once; the subscription is deleted when listen stops): ${secret} verifying with`,
      /deleted subscription wh_\w+ stopped listening$/,
    ]);
    // The secret on a line of its own or at the end of one: copied in one piece.
    expect(stderr).toMatch(new RegExp(`(^| )${secret}\\n`, 'm'));
  }, 60_000);
});
