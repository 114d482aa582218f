// rfs mcp in-process, its streams buffers: its own flags checked before it serves, and a client
// that writes its requests and closes stdin at once still gets every answer, then exit 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/index.js';
import { bufferIO } from '../../helpers/io.js';

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 44 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-mcp-session-'));
});

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin, RFS_CONFIG_DIR: dir, XDG_STATE_HOME: dir });

const rpc = (id: number | undefined, method: string, params: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params })}\n`;

describe('rfs mcp', () => {
  it.each([['0'], ['121'], ['12.5'], ['many']])('refuses --budget %s with exit 2 before it serves', async (budget) => {
    const t = bufferIO({ env: env() });
    expect(await runCli(['mcp', '--budget', budget], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/--budget/);
    expect(t.stdout()).toBe('');
  });

  it('refuses --jq, whose program would rewrite the protocol on stdout', async () => {
    const t = bufferIO({ env: env() });
    expect(await runCli(['mcp', '--jq', '.'], t.io)).toBe(2);
    expect(t.stderr()).toMatch(/rfs mcp takes no --jq/);
    expect(t.stdout()).toBe('');
  });

  it('answers every request of a client that closes stdin right after them, then exits 0', async () => {
    const stdin = [
      rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } }),
      rpc(undefined, 'notifications/initialized'),
      rpc(2, 'tools/call', { name: 'webhooks_list', arguments: {} }),
      rpc(3, 'tools/call', { name: 'sync_status', arguments: {} }),
      rpc(4, 'tools/call', { name: 'file', arguments: { id: 'rec_1' } }),
    ].join('');
    const t = bufferIO({ env: env(), stdin });
    expect(await runCli(['mcp'], t.io)).toBe(0);
    const answers = t
      .stdout()
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            id: number;
            result?: { isError: boolean; structuredContent: { exitCode: number } };
            error?: { message: string };
          },
      );
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(2)?.result?.structuredContent.exitCode).toBe(0);
    expect(byId.get(3)?.result?.structuredContent.exitCode).toBe(0);
    // A write tool, not offered without --allow-write: a protocol error that says why.
    expect(byId.get(4)?.error?.message).toMatch(/only when started with --allow-write/);
  });
});
