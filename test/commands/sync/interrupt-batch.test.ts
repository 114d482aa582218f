// Ctrl-C in the middle of an rfs sync pass, through the whole CLI against the in-process
// sandbox: the summary names the step that was in flight and the pass exits 130.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { bufferIO } from '../../helpers/io.js';
import { eventually, start, type Harness } from '../../sandbox/helpers.js';

let h: Harness;
let dir: string;

beforeEach(async () => {
  h = await start({ rateLimit: 0, recordings: 2 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-sync-interrupt-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

it('on Ctrl-C while the command runs names that recording and its attempt, and exits 130', async () => {
  const ran = join(dir, 'ran');
  const journal = join(dir, 'journal.jsonl');
  // The second recording's command hangs. Ctrl-C lets a running command finish (cli.md, sync),
  // up to --exec-timeout: 1 s here, after which it is stopped.
  const command = `cat >/dev/null; echo "$RFS_RECORDING_ID" >> "${ran}"; if [ "$(wc -l < "${ran}")" -ge 2 ]; then sleep 30; fi; echo "EXT-$RFS_RECORDING_ID"`;
  const t = bufferIO({
    env: { RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: h.keys.admin, RFS_BASE_URL: h.base, PATH: process.env.PATH },
  });
  const controller = new AbortController();
  const running = runCli(
    ['sync', '--exec', command, '--provider', 'crm', '--journal', journal, '-o', 'ndjson', '--exec-timeout', '1'],
    t.io,
    {
      signal: controller.signal,
    },
  );
  const [first, second] = await eventually(async () => {
    const ids = existsSync(ran) ? readFileSync(ran, 'utf8').trim().split('\n') : [];
    return ids.length === 2 ? ids : undefined;
  }, 10_000);
  controller.abort();
  expect(await running).toBe(130);
  expect(JSON.parse(t.stdout())).toMatchObject({ id: first, ok: true, externalId: `EXT-${first}` });
  expect(t.stderr()).toContain(
    `sync: 1 filed, 0 failed; interrupted while running the command for ${second} (attempt 1; it runs again with RFS_ATTEMPT=2 next time); the journal ${journal} holds what is pending\n`,
  );
  const steps = readFileSync(journal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(steps.at(-1)).toMatchObject({ step: 'failed', id: second, attempt: 1, error: { code: 'COMMAND_TIMEOUT' } });
}, 20_000);
