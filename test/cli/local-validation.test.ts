// Flag parsing and local validation: every invalid value of cli.md gets exit 2 and sends
// nothing. A scenario server with nothing queued stands behind every run and must see no request.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { bufferIO } from '../helpers/io.js';
import { startScenarioServer, type ScenarioServer } from '../helpers/scenario-server.js';

let server: ScenarioServer;
let configDir: string;

beforeAll(async () => {
  server = await startScenarioServer();
  configDir = mkdtempSync(join(tmpdir(), 'rfs-flags-'));
});
afterAll(async () => {
  await server.close();
  rmSync(configDir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { RFS_CONFIG_DIR: configDir, RFS_API_KEY: 'service_pk_flagtest0000', RFS_BASE_URL: server.url, ...extra };
}

const INVALID: [string, string[], RegExp][] = [
  ['an unknown output format', ['recordings', 'list', '-o', 'xml'], /xml/],
  ['a zero timeout', ['recordings', 'list', '--timeout', '0'], /--timeout/],
  ['a timeout that is not a number', ['recordings', 'list', '--timeout', 'soon'], /--timeout/],
  ['negative retries', ['recordings', 'list', '--max-retries', '-1'], /--max-retries/],
  ['fractional retries', ['recordings', 'list', '--max-retries', '1.5'], /--max-retries/],
  ['a negative rate', ['recordings', 'list', '--rate', '-5'], /--rate/],
  ['an unknown status', ['recordings', 'list', '--status', 'DONE'], /COMPLETED/],
  ['an unknown sync state', ['recordings', 'list', '--sync-state', 'maybe'], /unsynced/],
  ['an unknown include', ['recordings', 'list', '--include', 'everything'], /contentJson/],
  ['limit 0', ['recordings', 'list', '--limit', '0'], /1 to 100/],
  ['limit 101', ['recordings', 'list', '--limit', '101'], /1 to 100/],
  ['a limit with letters', ['recordings', 'list', '--limit', '5x'], /--limit/],
  ['max-items 0', ['recordings', 'list', '--all', '--max-items', '0'], /--max-items/],
  ['an unreadable updated-since', ['recordings', 'list', '--updated-since', 'yesterday'], /--updated-since/],
  ['a get without an id', ['recordings', 'get'], /id/],
  ['an include get does not take', ['recordings', 'get', 'rec_1', '--include', 'content'], /contentJson/],
  ['file without an id', ['file', '--provider', 'crm', '--external-id', 'X'], /id/],
  ['file without a provider', ['file', 'rec_1', '--external-id', 'X'], /--provider/],
  ['file without an external id', ['file', 'rec_1', '--provider', 'crm'], /--external-id/],
  ['a filed-at that is not ISO 8601', ['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--filed-at', 'monday'], /--filed-at/],
  [
    'a filed-at on a day February does not have',
    ['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--filed-at', '2025-02-30T00:00:00Z'],
    /--filed-at/,
  ],
  [
    'an updated-since on a day February does not have',
    ['recordings', 'list', '--updated-since', '2025-02-30T00:00:00Z'],
    /--updated-since/,
  ],
  ['metadata that is not JSON', ['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--metadata', '{nope'], /--metadata/],
  ['metadata that is an array', ['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--metadata', '[1]'], /object/],
  [
    'a metadata file that does not exist',
    ['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--metadata', '@/nonexistent/m.json'],
    /--metadata/,
  ],
  ['--from with an id', ['file', 'rec_1', '--from', '-'], /--from/],
  ['webhooks create without --url', ['webhooks', 'create'], /--url/],
  ['a webhook URL that is not a URL', ['webhooks', 'create', '--url', 'hooks.example.com'], /--url/],
  ['a webhook URL with another scheme', ['webhooks', 'create', '--url', 'ftp://hooks.example.com/x'], /scheme/],
  ['an unknown event', ['webhooks', 'create', '--url', 'https://h.example.com', '--event', 'recording.deleted'], /recording\.completed/],
  ['a short idempotency key', ['webhooks', 'create', '--url', 'https://h.example.com', '--idempotency-key', 'abc'], /idempotency/],
  [
    'an idempotency key with a space',
    ['webhooks', 'create', '--url', 'https://h.example.com', '--idempotency-key', 'has space 123'],
    /idempotency/,
  ],
  ['webhooks list limit 51', ['webhooks', 'list', '--limit', '51'], /1 to 50/],
  ['webhooks delete without a terminal or --yes', ['webhooks', 'delete', 'wh_1'], /--yes/],
  ['deliveries list limit 0', ['deliveries', 'list', '--limit', '0'], /1 to 50/],
  ['replay with nothing to replay', ['deliveries', 'replay'], /--all-failed/],
  ['replay with ids and --all-failed', ['deliveries', 'replay', 'dlv_1', '--all-failed'], /not both/],
  ['--dry-run without --all-failed', ['deliveries', 'replay', 'dlv_1', '--dry-run'], /--all-failed/],
  ['replay --all-failed without a terminal or --yes', ['deliveries', 'replay', '--all-failed'], /--yes/],
  ['an unknown command', ['recrdings', 'list'], /recordings/],
  ['an unknown flag', ['recordings', 'list', '--colour'], /--colour/],
  ['an unknown shell', ['completion', 'tcsh'], /bash/],
];

describe('local validation', () => {
  it.each(INVALID)('refuses %s with exit 2 and sends nothing', async (_what, argv, message) => {
    const before = server.requests.length;
    const t = bufferIO({ env: env() });
    const code = await runCli(argv, t.io);
    expect(code).toBe(2);
    expect(t.stderr()).toMatch(message);
    expect(server.requests.length).toBe(before);
  });

  it('refuses plain http to a host that is not loopback, before sending', async () => {
    const t = bufferIO({ env: env({ RFS_BASE_URL: 'http://api.example.invalid' }) });
    expect(await runCli(['recordings', 'list'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/clear text/);
  });

  it('refuses a key without the service_pk_ prefix and never echoes it', async () => {
    const t = bufferIO({ env: env({ RFS_API_KEY: 'sk_live_secretvalue' }) });
    expect(await runCli(['recordings', 'list'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/service_pk_/);
    expect(t.stderr()).not.toContain('secretvalue');
  });

  it('exits 3 naming both ways to give a key when none is configured', async () => {
    const t = bufferIO({ env: { RFS_CONFIG_DIR: configDir, RFS_BASE_URL: server.url } });
    expect(await runCli(['recordings', 'list'], t.io)).toBe(3);
    expect(t.stderr()).toMatch(/rfs auth login/);
    expect(t.stderr()).toMatch(/RFS_API_KEY/);
  });

  it('suggests the closest command for a typo', async () => {
    const t = bufferIO({ env: env() });
    expect(await runCli(['recordngs'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/Did you mean recordings\?/);
  });

  it('prints the overview for rfs alone and exits 0', async () => {
    const t = bufferIO({ env: env() });
    expect(await runCli([], t.io)).toBe(0);
    expect(t.stdout() + t.stderr()).toMatch(/recordings/);
  });

  it('has help topics for exit codes and environment', async () => {
    const a = bufferIO({ env: env() });
    expect(await runCli(['help', 'exit-codes'], a.io)).toBe(0);
    expect(a.stdout()).toMatch(/130 +interrupted/);
    const b = bufferIO({ env: env() });
    expect(await runCli(['help', 'environment'], b.io)).toBe(0);
    expect(b.stdout()).toMatch(/RFS_API_KEY/);
    // What the start of rfs reads before any command (bin/rfs.js: the code cache) is listed too;
    // HOME only locates the default folders.
    const atStart = new Set(
      [...readFileSync(fileURLToPath(new URL('../../bin/rfs.js', import.meta.url)), 'utf8').matchAll(/process\.env\.([A-Z_]+)/g)].map(
        (m) => m[1],
      ),
    );
    atStart.delete('HOME');
    expect([...atStart].sort()).toEqual(['NODE_DISABLE_COMPILE_CACHE', 'RFS_DEBUG', 'XDG_CACHE_HOME']);
    for (const name of atStart) expect(b.stdout()).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('sent no request in any of these runs', () => {
    expect(server.requests).toEqual([]);
    server.verify();
  });
});
