// Everything rfs says before it sends anything: every help text, every usage error and its exit
// code, for the whole command tree. The golden file was written by the code as it was before
// commands moved into their own folders; any change to it is a change users see.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { bufferIO } from '../helpers/io.js';

const VERBS: Record<string, string[]> = {
  auth: ['login', 'status', 'switch', 'logout'],
  recordings: ['list', 'get'],
  file: [],
  webhooks: ['create', 'list', 'delete', 'listen', 'sign', 'trigger'],
  deliveries: ['list', 'replay'],
  'verify-signature': [],
  sync: [],
  api: [],
  mcp: [],
  completion: [],
  sandbox: [],
};

const HELP: string[][] = [
  [],
  ['--help'],
  ['-h'],
  ['help'],
  ['--version'],
  ['help', 'exit-codes'],
  ['help', 'environment'],
  ['help', 'nothing'],
  ['recording', 'ls', '--help'],
  ['webhook', 'rm', '--help'],
  ['delivery', '--help'],
  ['-o', 'json', 'webhooks'],
  ...Object.entries(VERBS).flatMap(([noun, verbs]) => [
    [noun, '--help'],
    ['help', noun],
    ...verbs.flatMap((verb) => [
      [noun, verb, '--help'],
      ['help', noun, verb],
    ]),
  ]),
];

// Each one fails before anything is sent (the base URL is a closed port).
const ERRORS: string[][] = [
  ['recordngs'],
  ['recordings', 'lst'],
  ['recordz'],
  ['webhooks', 'rmm'],
  ['recordings', 'list', '--limt', '5'],
  ['file', 'a', 'b'],
  ['recordings', 'list', '--status', 'BAD'],
  ['recordings', 'list', '--sync-state', 'maybe'],
  ['recordings', 'list', '--include', 'x'],
  ['recordings', 'get'],
  ['recordings', 'get', 'rec_1', '--include', 'x'],
  ['-o', 'xml', 'recordings', 'list'],
  ['--timeout', '0', 'recordings', 'list'],
  ['--timeout', 'x', 'recordings', 'list'],
  ['--max-retries', '1.5', 'recordings', 'list'],
  ['--max-retries', '101', 'recordings', 'list'],
  ['--rate', '-1', 'recordings', 'list'],
  ['--rate', '', 'recordings', 'list'],
  ['recordings', 'list', '--limit', '0'],
  ['recordings', 'list', '--limit', '101'],
  ['recordings', 'list', '--limit', '2.5'],
  ['recordings', 'list', '--max-items', 'x'],
  ['recordings', 'list', '--max-items', '0'],
  ['recordings', 'list', '--updated-since', 'yesterday'],
  ['webhooks', 'list', '--limit', '51'],
  ['deliveries', 'list', '--limit', 'x'],
  ['webhooks', 'create'],
  ['webhooks', 'create', '--url', 'x'],
  ['webhooks', 'create', '--url', 'ftp://x'],
  ['webhooks', 'create', '--url', 'https://x', '--event', 'bad'],
  ['webhooks', 'create', '--url', 'https://x', '--idempotency-key', 'short'],
  ['webhooks', 'delete'],
  ['webhooks', 'delete', 'wh_1'],
  ['webhooks', 'listen', '--port', '70000'],
  ['webhooks', 'listen', '--port', 'x'],
  ['webhooks', 'listen', '--tolerance', '-1'],
  ['webhooks', 'listen', '--host', ' '],
  ['webhooks', 'listen', '--forward-to', 'nope'],
  ['webhooks', 'listen'],
  ['webhooks', 'sign', '--timestamp', '1700000000000'],
  ['webhooks', 'trigger'],
  ['webhooks', 'trigger', '--to', 'http://hooks.example.com/x'],
  ['verify-signature', '--tolerance', 'x'],
  ['verify-signature', '--now', 'x'],
  ['verify-signature', '--headers', 'h', '--timestamp', '1'],
  ['verify-signature', '--headers', '-'],
  ['verify-signature'],
  ['sync'],
  ['sync', '--exec', 'x'],
  ['sync', '--exec', 'x', '--provider', 'p', '--interval', '0'],
  ['sync', '--exec', 'x', '--provider', 'p', '--exec-timeout', '0'],
  ['sync', '--exec', 'x', '--provider', 'p', '--listen', '99999'],
  ['sync', '--exec', 'x', '--provider', 'p', '--max-items', '0'],
  ['sync', '--exec', 'x', '--provider', 'p', '--dry-run', '--watch'],
  ['sync', '--exec', ' ', '--provider', 'p'],
  ['sandbox', '--port', 'x'],
  ['sandbox', '--faults', '2'],
  ['sandbox', '--recordings', '-1'],
  ['sandbox', '--rate-window', '0'],
  ['sandbox', '--delivery-attempts', '30'],
  ['sandbox', '--delivery-backoff', '1.5'],
  ['sandbox', '--host', ''],
  ['sandbox', '--seed', 'a b'],
  ['sandbox', '--data', ' '],
  ['sandbox', '--profile', 'prod', '--port', '0'],
  ['-q', '--jq', '.', 'sandbox'],
  ['completion', 'bash', '-o', 'json'],
  ['deliveries', 'replay'],
  ['deliveries', 'replay', 'dlv_1', '--all-failed'],
  ['deliveries', 'replay', 'dlv_1', '--dry-run'],
  ['deliveries', 'replay', '--all-failed'],
  ['deliveries', 'replay', '--all-failed', '--max', '0'],
  ['deliveries', 'replay', 'dlv_1', '--wait-timeout', '5'],
  ['file'],
  ['file', 'rec_1'],
  ['file', 'rec_1', '--provider', 'p'],
  ['file', 'rec_1', '--provider', 'p', '--external-id', 'e', '--filed-at', 'bad'],
  ['file', 'rec_1', '--provider', 'p', '--external-id', 'e', '--metadata', '[1]'],
  ['file', 'rec_1', '--provider', 'p', '--external-id', 'e', '--metadata', '{'],
  ['file', 'rec_1', '--provider', 'p', '--external-id', 'e', '--metadata', '@/nonexistent/m.json'],
  ['file', '--from', '-', '--external-id', 'e'],
  ['file', '--from', '/nonexistent/lines.ndjson'],
  ['completion'],
  ['completion', 'csh'],
  ['auth', 'switch'],
  ['auth', 'switch', 'bad name!'],
  ['auth', 'login'],
  ['auth', 'logout'],
  ['auth', 'status', '--bogus'],
];

async function transcript(argv: string[]): Promise<string> {
  const env = {
    RFS_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rfs-surface-')),
    RFS_API_KEY: 'service_pk_surface0000000000000000',
    RFS_BASE_URL: 'http://127.0.0.1:9',
  };
  const b = bufferIO({ env });
  const code = await runCli(argv, b.io);
  return `$ rfs ${argv.map((a) => JSON.stringify(a)).join(' ')}\n[exit ${code}]\n--- stdout\n${b.stdout()}--- stderr\n${b.stderr()}`;
}

describe('what rfs says before sending anything', () => {
  it('help texts are unchanged', async () => {
    const parts: string[] = [];
    for (const argv of HELP) parts.push(await transcript(argv));
    await expect(parts.join('\n')).toMatchFileSnapshot('./__golden__/help.txt');
  });

  it('usage errors and their exit codes are unchanged', async () => {
    const parts: string[] = [];
    for (const argv of ERRORS) parts.push(await transcript(argv));
    await expect(parts.join('\n')).toMatchFileSnapshot('./__golden__/errors.txt');
  });
});
