// Everything rfs says before it sends anything: every help text, every usage error and its exit
// code, for the whole command tree. Each help text is pinned once, in docs/reference.md (generated
// from the declarations by `npm run completions`, checked by test/docs/reference.test.ts): here
// every way of asking for it must print exactly that. The usage errors are pinned in
// __golden__/errors.txt; any change to either is a change users see.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPaths } from '../../src/cli/reference.js';
import { runCli } from '../../src/cli/run.js';
import { HELP_TOPICS } from '../../src/commands/topics.js';
import { bufferIO } from '../helpers/io.js';

const REFERENCE = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8');

/** The help of `rfs <path>` as docs/reference.md holds it: the one pinned copy of every help text. */
function referenceHelp(path: readonly string[]): string {
  const heading = `\n## ${['rfs', ...path].join(' ')}\n\n\`\`\`text\n`;
  const start = REFERENCE.indexOf(heading);
  if (start < 0) throw new Error(`docs/reference.md has no section for rfs ${path.join(' ')}`);
  const body = start + heading.length;
  return REFERENCE.slice(body, REFERENCE.indexOf('\n```', body));
}

/** Every way to ask for one text, each with the reference section it must print. */
const HELP_FORMS: [argv: string[], path: string[]][] = [
  [[], []],
  [['--help'], []],
  [['-h'], []],
  [['help'], []],
  [
    ['recording', 'ls', '--help'],
    ['recordings', 'list'],
  ],
  [
    ['webhook', 'rm', '--help'],
    ['webhooks', 'delete'],
  ],
  [['delivery', '--help'], ['deliveries']],
  [['-o', 'json', 'webhooks'], ['webhooks']],
  ...Object.keys(HELP_TOPICS).map((topic): [string[], string[]] => [
    ['help', topic],
    ['help', topic],
  ]),
  ...commandPaths().flatMap((path): [string[], string[]][] => [
    [[...path, '--help'], path],
    [['help', ...path], path],
  ]),
];

/** What has no reference section: the version and a topic that does not exist. */
const HELP: string[][] = [['--version'], ['help', 'nothing']];

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
  it.each(HELP_FORMS)('rfs %j prints the help of docs/reference.md for %j to stdout, exit 0', async (argv, path) => {
    const b = bufferIO({ env: { RFS_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rfs-surface-')) } });
    const code = await runCli(argv, b.io);
    // The reference keeps each text without its trailing blank lines.
    expect({ code, stdout: b.stdout().trimEnd(), stderr: b.stderr() }).toEqual({ code: 0, stdout: referenceHelp(path), stderr: '' });
    expect(b.stdout()).toMatch(/\S\n\n?$/);
  });

  it('the version and an unknown help topic are unchanged', async () => {
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
