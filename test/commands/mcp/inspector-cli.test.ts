// rfs mcp through the MCP Inspector's command-line mode (@modelcontextprotocol/inspector-cli,
// a devDependency), the tool MCP server authors check a server with: it starts the built CLI
// itself over stdio, lists the tools and calls three of them against a sandbox, the requests
// each says it sent held against the sandbox's request log.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RFS_BIN, type SandboxProcess, startSandboxProcess } from '../../helpers/child.js';

const INSPECTOR = join(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json'), '..', 'build', 'cli.js');

let sandbox: SandboxProcess;
let work: string;
let cwd: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--scenario', 'incident', '--seed', '7']);
  work = mkdtempSync(join(tmpdir(), 'rfs-mcp-inspector-'));
  // inspector-cli 1.0.3 reads its own package.json as `../package.json` when a file of that name
  // exists relative to the working folder (it asks fs.existsSync, which is relative to the
  // working folder, then import(), which is relative to itself): a folder with one above it.
  writeFileSync(join(work, 'package.json'), '{}\n');
  cwd = join(work, 'run');
  mkdirSync(cwd);
}, 60_000);

afterAll(async () => {
  expect(await sandbox?.stop()).toBe(0);
  rmSync(work, { recursive: true, force: true });
});

/** `mcp-inspector-cli --cli … node bin/rfs.js mcp --method …`; its stdout as JSON. */
function inspector(method: string[]): Promise<unknown> {
  const env = [`RFS_BASE_URL=${sandbox.baseUrl}`, `RFS_API_KEY=${sandbox.apiKeys.admin}`, `RFS_CONFIG_DIR=${join(work, 'config')}`];
  const args = [INSPECTOR, '--cli', ...env.flatMap((e) => ['-e', e]), process.execPath, RFS_BIN, 'mcp', '--method', ...method];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`inspector exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`inspector printed no JSON: ${out}\n${err}`));
      }
    });
  });
}

interface ToolAnswer {
  structuredContent: { exitCode: number; requests: number; result: unknown; notices: string[] };
  isError: boolean;
}

/** The sandbox's request log (sandbox.md, "Request log"): where it ends now, and what came after `seq`. */
async function logged(since?: number): Promise<{ lastSeq: number; paths: string[] }> {
  const response = await fetch(`${sandbox.baseUrl}/_sandbox/requests${since === undefined ? '' : `?since=${since}`}`);
  const body = (await response.json()) as { meta: { lastSeq: number }; data: { path: string; query: string }[] };
  return { lastSeq: body.meta.lastSeq, paths: body.data.map((r) => `${r.path}?${r.query}`) };
}

it('lists the read-only tools and calls deliveries_list, deliveries_summary and deliveries_replay_dry_run against the sandbox', async () => {
  const listed = (await inspector(['tools/list'])) as {
    tools: { name: string; description: string; annotations: { readOnlyHint: boolean } }[];
  };
  expect(listed.tools.map((t) => t.name)).toEqual([
    'recordings_list',
    'recordings_get',
    'deliveries_list',
    'deliveries_summary',
    'deliveries_replay_dry_run',
    'webhooks_list',
    'doctor',
    'sync_status',
  ]);
  expect(listed.tools.every((t) => t.annotations.readOnlyHint)).toBe(true);
  // What the two tools that send several requests cost of the budget.
  for (const name of ['deliveries_summary', 'deliveries_replay_dry_run'])
    expect(listed.tools.find((t) => t.name === name)?.description).toMatch(/Costs \d+ (requests or more|or \d+ requests) of the budget/);

  // --tool-arg values are read as JSON where they parse: limit=3 arrives as the number 3.
  const list = (await inspector([
    'tools/call',
    '--tool-name',
    'deliveries_list',
    '--tool-arg',
    'status=FAILED',
    '--tool-arg',
    'limit=3',
  ])) as ToolAnswer;
  expect(list.isError).toBe(false);
  const rows = list.structuredContent.result as { id: string; status: string }[];
  expect(rows).toHaveLength(3);
  expect(rows.every((r) => r.status === 'FAILED' && r.id.startsWith('dlv_'))).toBe(true);

  const before = await logged();
  const summary = (await inspector(['tools/call', '--tool-name', 'deliveries_summary'])) as ToolAnswer;
  expect(summary.isError).toBe(false);
  expect(summary.structuredContent.exitCode).toBe(8);
  // The requests it says it sent are those the sandbox logged, each list once.
  const sent = (await logged(before.lastSeq)).paths;
  expect(summary.structuredContent.requests).toBe(sent.length);
  expect(new Set(sent).size).toBe(sent.length);
  const groups = summary.structuredContent.result as { status: string; countIsLowerBound: boolean }[];
  expect(groups.some((g) => g.status === 'FAILED' && g.countIsLowerBound)).toBe(true);

  // A dry run with a filter behind the full FAILED list: one list per subscription, GET /webhooks once.
  const beforeDry = await logged();
  const dry = (await inspector(['tools/call', '--tool-name', 'deliveries_replay_dry_run', '--tool-arg', 'since=3h'])) as ToolAnswer;
  expect(dry.isError).toBe(false);
  const dried = (await logged(beforeDry.lastSeq)).paths;
  expect(dried.filter((p) => p.startsWith('/api/v1/webhooks?'))).toHaveLength(1);
  expect(dried.filter((p) => p.includes('subscriptionId=')).length).toBeGreaterThan(0);
  expect(dry.structuredContent.requests).toBe(dried.length);
}, 120_000);
