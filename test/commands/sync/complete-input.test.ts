// The command's stdin is the whole detail before the command starts (cli.md, sync): rfs is
// killed (SIGKILL, by the command itself, the instant it starts) while it starts the command
// on a 2 MB detail, far more than a pipe holds. The command, left running, must still read the
// whole detail: a body written into a pipe as the command reads would be cut off at ~64 KiB.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../../helpers/child.js';
import { page, recording } from '../../helpers/fixtures.js';
import { LINUX, needs } from '../../helpers/platform.js';
import { startScenarioServer, type ScenarioServer } from '../../helpers/scenario-server.js';
import { eventually } from '../../sandbox/helpers.js';
import { journalSteps } from './helpers.js';

const PROBE = fileURLToPath(new URL('./fixtures/stdin-probe.mjs', import.meta.url));
const TRANSCRIPT_BYTES = 2 * 1024 * 1024;

let server: ScenarioServer;
let dir: string;
beforeEach(async () => {
  server = await startScenarioServer();
  dir = mkdtempSync(join(tmpdir(), 'rfs-input-'));
  mkdirSync(join(dir, 'tmp'));
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!LINUX.met)(needs(LINUX, 'rfs killed with SIGKILL by its command'), () => {
  it('a command started as rfs dies still reads the whole detail on its stdin', async () => {
    const detail = recording(1, { transcript: 't'.repeat(TRANSCRIPT_BYTES) });
    server.queue(
      { expect: { method: 'GET', url: /^\/api\/v1\/recordings\?/ }, body: page([recording(1)], null, 100) },
      { expect: { method: 'GET', url: '/api/v1/recordings/rec_0001' }, body: { data: detail } },
    );
    const probe = join(dir, 'probe.jsonl');
    const journal = join(dir, 'journal.jsonl');
    // The first attempt kills rfs (its parent) before reading anything.
    const command = `if [ "$RFS_ATTEMPT" = 1 ]; then kill -9 $PPID; fi; exec "${process.execPath}" "${PROBE}"`;
    const child = spawn(process.execPath, [RFS_BIN, 'sync', '--exec', command, '--provider', 'crm', '--journal', journal], {
      env: {
        PATH: process.env.PATH,
        RFS_CONFIG_DIR: join(dir, 'config'),
        RFS_API_KEY: 'service_pk_test_0123456789abcdef',
        RFS_BASE_URL: server.url,
        PROBE_FILE: probe,
        RFS_EXEC_ENV: 'PROBE_FILE',
        TMPDIR: join(dir, 'tmp'),
      },
      stdio: 'ignore',
    });
    const ended = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(ended).toBe('SIGKILL');
    expect(journalSteps(journal).map((s) => s.step)).toEqual(['started']);

    const [found] = await eventually(async () => {
      const text = (() => {
        try {
          return readFileSync(probe, 'utf8');
        } catch {
          return '';
        }
      })();
      return text === ''
        ? undefined
        : text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
    }, 10_000);
    expect(found).toMatchObject({ id: 'rec_0001', attempt: '1', valid: true, matches: true });
    expect(found.bytes).toBeGreaterThan(TRANSCRIPT_BYTES);
    // Nothing of the recording is left on disk: the input file was gone once opened. (Only
    // rfs's own folders: Node 22+ keeps its compile cache in the same temporary folder.)
    const inputs = readdirSync(join(dir, 'tmp')).filter((folder) => folder.startsWith('rfs-sync-'));
    expect(inputs.length).toBeGreaterThan(0);
    for (const folder of inputs) expect(readdirSync(join(dir, 'tmp', folder))).toEqual([]);
  });
});
