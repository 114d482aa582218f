// Rules of cli.md that no other test pins down: RFS_NO_INPUT turns prompts off even on a
// terminal; --verbose shows the generated Idempotency-Key; the sync journal's default path.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { defaultJournalPath } from '../../src/sync/journal.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

let server: ScenarioServer;
let dir: string;

beforeAll(async () => {
  server = await startScenarioServer();
  dir = mkdtempSync(join(tmpdir(), 'rfs-rules-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ RFS_CONFIG_DIR: join(dir, 'config'), RFS_API_KEY: 'service_pk_rules000000', RFS_BASE_URL: server.url });

describe('prompts', () => {
  it('are off with RFS_NO_INPUT=1 even on a terminal: delete exits 2 naming --yes and sends nothing', async () => {
    const t = bufferIO({ stdinIsTTY: true, stderrIsTTY: true, stdoutIsTTY: true, env: { ...env(), RFS_NO_INPUT: '1' } });
    expect(await runCli(['webhooks', 'delete', 'wh_1'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/--yes/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('webhooks create --verbose', () => {
  it('shows the generated Idempotency-Key once, the same one that was sent', async () => {
    server.queue({
      status: 201,
      body: {
        data: {
          id: 'wh_9',
          url: 'https://h.example.com/x',
          events: ['recording.completed'],
          secret: 'whsec_abcdefabcdefabcdefabcdefabcdefab',
        },
      },
    });
    const t = bufferIO({ env: env() });
    expect(await runCli(['webhooks', 'create', '--url', 'https://h.example.com/x', '-v'], t.io)).toBe(0);
    const shown = /idempotency-key (rfs-[0-9a-f-]{36})/.exec(t.stderr())?.[1];
    expect(shown).toBeDefined();
    expect(server.requests.at(-1)?.headers['idempotency-key']).toBe(shown);
    expect(t.stderr().split(shown as string)).toHaveLength(2);
  });
});

describe('the sync journal', () => {
  it('defaults to $XDG_STATE_HOME/rfs/sync-<profile>.jsonl, else ~/.local/state/rfs/…', () => {
    expect(defaultJournalPath({ XDG_STATE_HOME: '/var/state', HOME: '/home/a' }, 'prod')).toBe('/var/state/rfs/sync-prod.jsonl');
    expect(defaultJournalPath({ HOME: '/home/a' }, 'default')).toBe('/home/a/.local/state/rfs/sync-default.jsonl');
    // A relative XDG_STATE_HOME is not valid per the XDG spec and is ignored.
    expect(defaultJournalPath({ XDG_STATE_HOME: 'rel', HOME: '/home/a' }, 'x')).toBe('/home/a/.local/state/rfs/sync-x.jsonl');
  });
});
