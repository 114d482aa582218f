// --jq against jq itself (cli.md, Output): for each program, what `rfs <command> --jq P` prints
// and its exit code are compared with `rfs <command> -o ndjson | jq -r -c P`, byte for byte,
// over a list of several pages (--all), one page, and a single resource. The reference is jq
// 1.8's command line run the plain way (test/helpers/jq-reference.cjs). Where jq goes on after
// a runtime error, rfs stops (exit 1): it must print what jq printed up to that item.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { page, recording } from '../helpers/fixtures.js';
import { type ScenarioServer, startScenarioServer } from '../helpers/scenario-server.js';
import { bufferIO } from '../helpers/io.js';

const REFERENCE = fileURLToPath(new URL('../helpers/jq-reference.cjs', import.meta.url));

/** Programs over items (a recording each): the input stream, halting, formats, numbers, errors. */
const PROGRAMS = [
  '.',
  '.id',
  '.title',
  '{id, status}',
  '[.id, .priority]',
  'keys',
  'keys_unsorted | length',
  '.id | length',
  'input',
  '[., input] | length',
  '[., inputs] | length',
  '[inputs] | length',
  'input_line_number',
  '[input_line_number, .id]',
  'first(inputs) | .id',
  '.id, halt',
  'halt',
  'if input_line_number == 2 then halt else .id end',
  '"stop" | halt_error',
  '"stop\\n" | halt_error',
  '"stop" | halt_error(0)',
  '{a: 1} | halt_error',
  '.id | halt_error(3)',
  'if input_line_number == 3 then "third\\n" | halt_error(4) else .id end',
  'limit(2; .id, .title, .status)',
  'limit(0; .id)',
  'first(.id, .title)',
  'first(empty)',
  '[limit(3; repeat(.id))]',
  '$__loc__',
  '$__loc__.line',
  '[.id, .title] | @csv',
  '[.id, .title] | @tsv',
  '.title | @json',
  '.title | @base64',
  '.title | @uri',
  '.title | @html',
  '.title | @sh',
  '[.id] | @text',
  '3.0',
  '1.10',
  '9007199254740993',
  '1e1000',
  '-1e1000',
  '[3.0, 1.10, 100000000000000000000000001]',
  '0.1 + 0.2',
  '1 / 3',
  '.priority * 1.5',
  'tostring',
  '.title | ascii_downcase',
  '.title | test("a"; "i")',
  '[.title | scan("[aeiou]")] | length',
  'to_entries | map(.key) | join(",")',
  'paths | tostring',
  '[paths] | length',
  'getpath(["id"])',
  'del(.title) | keys | length',
  'with_entries(select(.key == "id"))',
  'reduce (.id | explode[]) as $c (0; . + $c)',
  '[range(3)]',
  'range(2; 5)',
  'select(.priority == "high") | .id',
  '.id | select(startswith("rec_"))',
  'try error("x") catch .',
  '.missing // "none"',
  'null',
  'empty',
  '"a\\tb\\u0000c"',
  'env | type',
  '$ENV | type',
  'ltrimstr("x")',
  '.id | ascii',
  'error("boom")',
  'error',
  'error(null)',
  '.id | error',
  '.title | tonumber',
  '.id + 1',
  'if input_line_number == 3 then error("third") else .id end',
  '{} | .a.b.c = 1',
  '[., input, input, input, input, input, input, input, input, input, input, input, input, input, input, input, input, input] | length',
];

/** Programs that do not compile: exit 2 before anything is sent, and no output. */
const NOT_COMPILING = ['.[', 'foo(1)', '$nope', '.a |', 'if . then 1', '"unterminated', '}'];

interface Result {
  stdout: string;
  stderr: string;
  exitCode: number;
}

let sandbox: RunningSandbox;
let dir: string;
let key: string;
let firstId: string;

async function rfs(argv: string[]): Promise<Result> {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: dir, RFS_API_KEY: key, RFS_BASE_URL: sandbox.baseUrl } });
  const exitCode = await runCli(argv, t.io, { clock: fakeTime().clock });
  return { stdout: t.stdout(), stderr: t.stderr(), exitCode };
}

function reference(cases: { program: string; input: string }[]): Result[] {
  const run = spawnSync(process.execPath, [REFERENCE], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`the jq reference failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Result[];
}

/**
 * What rfs must print and exit with for each program, from jq's runs over the whole input. One
 * reference process for all of them, and one more for those that fail at run time: each
 * process loads jq-wasm anew, which cost more than all the comparisons.
 */
function expectations(programs: readonly string[], input: string): { stdout: string; exitCode: number }[] {
  const jq = reference(programs.map((program) => ({ program, input })));
  const wanted: ({ stdout: string; exitCode: number } | { program: string; upTo: string })[] = programs.map((program, i) => {
    const run = jq[i] as Result;
    // A program jq does not compile (exit 3) is a usage error of rfs's (exit 2).
    if (run.exitCode === 3 && /compile error/.test(run.stderr)) return { stdout: '', exitCode: 2 };
    const failed = /^jq: error \(at [^)]*:(\d+)\)/m.exec(run.stderr);
    if (!failed) return { stdout: run.stdout, exitCode: run.exitCode };
    // jq went on after the error on line N; rfs stops there: jq's output over lines 1..N.
    return { program, upTo: `${input.split('\n').slice(0, Number(failed[1])).join('\n')}\n` };
  });
  const cut = wanted.filter((w): w is { program: string; upTo: string } => 'upTo' in w);
  const cutRuns = cut.length === 0 ? [] : reference(cut.map((w) => ({ program: w.program, input: w.upTo })));
  let next = 0;
  return wanted.map((w) => ('upTo' in w ? { stdout: cutRuns[next++]?.stdout ?? '', exitCode: 1 } : w));
}

/** Runs at once: each run's jq is a worker thread of its own. */
const AT_ONCE = 4;

async function differences(command: string[], programs: readonly string[]): Promise<string[]> {
  const ndjson = await rfs([...command, '-o', 'ndjson']);
  expect(ndjson.exitCode).toBe(0);
  expect(ndjson.stdout.split('\n').length).toBeGreaterThan(1);
  const wants = expectations(programs, ndjson.stdout);
  const found: string[] = [];
  let next = 0;
  const runner = async (): Promise<void> => {
    for (let i = next++; i < programs.length; i = next++) {
      const program = programs[i] as string;
      const want = wants[i] as { stdout: string; exitCode: number };
      const got = await rfs([...command, '--jq', program]);
      if (got.stdout !== want.stdout || got.exitCode !== want.exitCode) {
        found.push(
          `${program}: rfs exit ${got.exitCode} ${got.stderr.split('\n')[0]} ${JSON.stringify(got.stdout.slice(0, 200))}, jq exit ${want.exitCode} ${JSON.stringify(want.stdout.slice(0, 200))}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, runner));
  return found;
}

/** A sample of PROGRAMS for one page and a single resource: the stream, halting, errors, formats. */
const SAMPLE = PROGRAMS.filter((program, i) => i % 8 === 0 || /^\[?\.?,? ?inputs?\b|halt|^error|then error/.test(program));

/** The sandbox's request log (sandbox.md, Request log): what reached /api/v1. */
async function apiRequests(): Promise<unknown> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/requests`);
  return res.json();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-jq-diff-'));
  // Every program lists the pages again: more requests than the service's rate allows a minute.
  sandbox = await startSandbox({ port: 0, seed: 'jq-differential', recordings: 12, rateLimit: 100_000 });
  key = sandbox.apiKeys.admin;
  const ids = await rfs(['recordings', 'list', '--limit', '1', '-o', 'ndjson']);
  firstId = (JSON.parse(ids.stdout.split('\n')[0] as string) as { id: string }).id;
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--jq prints what jq 1.8 prints over -o ndjson', () => {
  let notCompiling: Result[] | undefined;
  it(`agrees on ${PROGRAMS.length} programs over --all across pages`, async () => {
    expect(await differences(['recordings', 'list', '--all', '--limit', '4'], PROGRAMS)).toEqual([]);
  }, 120_000);

  it(`agrees on ${SAMPLE.length} of them over one page`, async () => {
    expect(await differences(['recordings', 'list', '--limit', '3'], SAMPLE)).toEqual([]);
  }, 120_000);

  it(`agrees on ${SAMPLE.length} of them over a recordings get`, async () => {
    expect(await differences(['recordings', 'get', firstId], SAMPLE)).toEqual([]);
  }, 120_000);

  it.each(NOT_COMPILING)('refuses %j with exit 2 and prints nothing, as jq refuses it (exit 3)', async (program) => {
    // jq's verdicts on all of them, from one reference process.
    notCompiling ??= reference(NOT_COMPILING.map((p) => ({ program: p, input: '{}' })));
    expect(notCompiling[NOT_COMPILING.indexOf(program)]?.exitCode).toBe(3);
    const before = await apiRequests();
    const got = await rfs(['recordings', 'list', '--jq', program]);
    expect(got.exitCode).toBe(2);
    expect(got.stdout).toBe('');
    expect(got.stderr).toContain('--jq does not compile: jq: error');
    expect(await apiRequests()).toEqual(before);
  });
});

/**
 * Number literals that JSON.parse would change (`3.0`, `1.10`, beyond 2^53, `1e1000`), in an
 * answer's text as a server may write it: jq 1.8 keeps or canonicalises them, and so must rfs.
 */
const LITERALS = ['3.0', '1.10', '9007199254740993', '100000000000000000000000001', '1e1000', '1.5E3', '-0', '0.10'];

function answerText(): string {
  const items = [1, 2].map((n) => {
    const fields = LITERALS.map((literal, i) => `"n${i}":${literal}`).join(',');
    return JSON.stringify(recording(n))
      .replace(/"audioDuration":\d+/, '"audioDuration":601.0')
      .replace(/}$/, `,${fields},"list":[${LITERALS.join(', ')}]}`);
  });
  const text = JSON.stringify(page(['ITEMS'], null));
  return text.replace('"ITEMS"', items.join(',\n  '));
}

const NUMBER_PROGRAMS = [
  '.',
  '.n0',
  '.n1, .n2, .n3',
  '.n4',
  '.n5, .n6, .n7',
  '.audioDuration',
  '.list',
  '.list[]',
  '[.n0, .n2] | @csv',
  '[.n1, .n3] | @tsv',
  '.n2 + 0',
  '.n0 * 1',
  '.list | map(tostring)',
  '.n2 | tostring',
  '.n3 == 100000000000000000000000001',
  '[inputs.n2] | length',
];

describe("--jq prints numbers as jq 1.8 prints the server's literals", () => {
  let server: ScenarioServer;
  beforeAll(async () => {
    server = await startScenarioServer();
  });
  afterAll(async () => {
    await server.close();
  });

  async function scenarioRun(argv: string[]): Promise<Result> {
    server.queue({ body: answerText(), headers: { 'content-type': 'application/json' } });
    const t = bufferIO({ env: { RFS_CONFIG_DIR: dir, RFS_API_KEY: key, RFS_BASE_URL: server.url } });
    const exitCode = await runCli(argv, t.io, { clock: fakeTime().clock });
    return { stdout: t.stdout(), stderr: t.stderr(), exitCode };
  }

  it('keeps them in -o ndjson, as the server wrote them', async () => {
    const ndjson = await scenarioRun(['recordings', 'list', '-o', 'ndjson']);
    expect(ndjson.exitCode).toBe(0);
    const [first] = ndjson.stdout.split('\n');
    for (const [i, literal] of LITERALS.entries()) expect(first).toContain(`"n${i}":${literal}`);
    expect(first).toContain('"audioDuration":601.0');
  });

  it(`agrees with jq on ${NUMBER_PROGRAMS.length} programs over them`, async () => {
    const ndjson = await scenarioRun(['recordings', 'list', '-o', 'ndjson']);
    const jq = reference(NUMBER_PROGRAMS.map((program) => ({ program, input: ndjson.stdout })));
    const found: string[] = [];
    for (const [i, program] of NUMBER_PROGRAMS.entries()) {
      const want = jq[i] as Result;
      const got = await scenarioRun(['recordings', 'list', '--jq', program]);
      if (got.stdout !== want.stdout || got.exitCode !== want.exitCode) {
        found.push(
          `${program}: rfs exit ${got.exitCode} ${JSON.stringify(got.stdout)}, jq exit ${want.exitCode} ${JSON.stringify(want.stdout)}`,
        );
      }
    }
    expect(found).toEqual([]);
    // What jq 1.8 prints for them: the literal kept, in decNumber's canonical form.
    const got = await scenarioRun(['recordings', 'list', '--jq', '.n0, .n1, .n2, .n4']);
    expect(got.stdout.split('\n').slice(0, 4)).toEqual(['3.0', '1.10', '9007199254740993', '1E+1000']);
  }, 120_000);
});
