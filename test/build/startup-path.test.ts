// What one page of `recordings list` runs (ARCHITECTURE.md, "How rfs starts"). Every module
// on that path is compiled (or read from the code cache) at every start of every command that
// talks to the service; the ones below have no business there. Checked on the bundle bin/rfs.js
// runs (dist/bundle/rfs.cjs, and rfs-more.cjs beside it, the rest of the CLI), where esbuild wraps each module loaded lazily (behind an `import()`)
// in a function that runs when it is first imported: V8's coverage says which bytes of the
// bundle ran, and the bundle's source map which source module each came from.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, startSandboxProcess, type SandboxProcess } from '../helpers/child.js';

/**
 * Off the path of one page: add a line to keep another module off it. Each pattern is matched
 * against the source path esbuild reports (`src/…`, `node_modules/<package>/…`).
 */
const OFF_THE_PATH: ReadonlyArray<readonly [what: string, pattern: RegExp]> = [
  ['the jq engine', /^node_modules\/jq-wasm\/|^src\/output\/jq|^src\/lazy\/jq/],
  ['prom-client (sync --metrics)', /^node_modules\/prom-client\//],
  ['the prompts', /^node_modules\/@inquirer\/|^src\/prompt\//],
  ['the spinner', /^node_modules\/ora\//],
  // All but its options' ranges, which the declaration of `rfs sandbox` checks its flags with.
  ['the sandbox', /^src\/sandbox\/(?!config\.ts$)/],
  ['undici', /^node_modules\/undici\//],
  [
    'a full-screen terminal UI',
    /^node_modules\/(ansi-escapes|environment|ink|react|blessed|neo-blessed|terminal-kit)\/|^src\/commands\/deliveries\/watch\/(screen|render|board)\.ts$/,
  ],
  ['sync', /^src\/sync\//],
  ['webhooks', /^src\/webhooks\//],
  // Loaded only with --inspect (webhooks listen, sandbox): its server, sources, history and page.
  ['the inspector', /^src\/inspector\//],
  // The answer is checked by the functions generated from the schemas (scripts/checks.mjs), and
  // the config file by its own: zod and the schemas stay with user input and the sync journal.
  ['zod and the schemas', /^node_modules\/zod\/|^src\/shared\/(schemas|zod-messages)\.ts$|^src\/config\/stored-config\.ts$/],
  // rfs mcp's server and its SDK (a file of its own beside the bundle); all but its declaration,
  // which every command's tree declares as it does the others'. The request budget is not here:
  // it is one of the client's wrappers (api/budget.ts), and idle unless a command sets a budget.
  ['the MCP server', /^node_modules\/@modelcontextprotocol\/|^src\/commands\/mcp\/(?!index\.ts$)|^src\/lazy\/mcp/],
];

/** What one page of `recordings list -o json` loads: packages by name, rfs's own modules by file. */
const PAGE_PATH: readonly string[] = [
  '@commander-js/extra-typings',
  'commander',
  'src/api',
  'src/batch',
  'src/cli',
  'src/commands',
  'src/completion',
  'src/config',
  'src/core',
  'src/main.ts',
  'src/output',
  'src/sandbox',
  'src/shared/answer-checks.generated.ts',
  // The API's limits (120 a minute, a list of 50 is full): one home, read by the client's pacing.
  'src/shared/api-limits.ts',
  'src/shared/check-runtime.ts',
  'src/shared/iso-time.ts',
  'src/shared/json-depth.ts',
  'src/shared/vocabulary.ts',
];

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/rfs.cjs', import.meta.url));

let sandbox: SandboxProcess;
let work: string;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--seed', '24']);
  work = mkdtempSync(join(tmpdir(), 'rfs-startup-path-'));
});
afterAll(async () => {
  expect(await sandbox.stop()).toBe(0);
  rmSync(work, { recursive: true, force: true });
});

interface Coverage {
  result: { url: string; functions: { ranges: { startOffset: number; endOffset: number; count: number }[] }[] }[];
}

/**
 * Which bytes of `length` ran inside a function of the bundle: each function's and block's range
 * painted over the ranges around it, outermost first. The bundle's own top level does not count:
 * for a module loaded lazily it holds only the declarations of its variables and its exports'
 * getters, which run whether the module is loaded or not. (A function V8 never compiled has no
 * range of its own; it lies inside its module's lazy wrapper, or inside that top level.)
 */
function executedBytes(functions: Coverage['result'][number]['functions'], length: number): Uint8Array {
  const ranges = functions.flatMap((f) =>
    f.ranges.map((r, i) => ({ ...r, count: i === 0 && r.startOffset <= 1 && r.endOffset >= length - 1 ? 0 : r.count })),
  );
  ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  const ran = new Uint8Array(length);
  for (const r of ranges) ran.fill(r.count > 0 ? 1 : 0, r.startOffset, r.endOffset);
  return ran;
}

/** The generated line and column of each mapping of a source map, with its source's index. */
function* segments(mappings: string): Generator<[line: number, column: number, source: number]> {
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let source = 0;
  for (const [line, text] of mappings.split(';').entries()) {
    let column = 0;
    for (const segment of text.split(',')) {
      if (segment === '') continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = digits.indexOf(char);
        value += (digit & 31) << shift;
        shift += 5;
        if ((digit & 32) === 0) {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] as number;
      if (fields.length < 4) continue;
      source += fields[1] as number;
      yield [line, column, source];
    }
  }
}

/** The bundle's two scripts (scripts/commonjs-bundle.mjs, bundleSplit): what one page runs, and the rest. */
const SCRIPTS = [BUNDLE, join(BUNDLE, '..', 'rfs-more.cjs')];

/** Of each script, the source modules (`src/…`, `node_modules/…`) of which `args` ran any code. */
async function modulesRunBy(args: string[]): Promise<Map<string, string[]>> {
  const coverage = mkdtempSync(join(work, 'coverage-'));
  const run = await runRfs(args, {
    env: {
      RFS_CONFIG_DIR: join(work, 'config'),
      RFS_BASE_URL: sandbox.baseUrl,
      RFS_API_KEY: sandbox.apiKeys.admin,
      // V8's record of what ran, from a bundle compiled afresh.
      NODE_DISABLE_COMPILE_CACHE: '1',
      NODE_V8_COVERAGE: coverage,
    },
  });
  expect(run.code, run.stderr).toBe(0);
  const reports = readdirSync(coverage).flatMap((report) => (JSON.parse(readFileSync(join(coverage, report), 'utf8')) as Coverage).result);
  const ran = new Map<string, string[]>();
  for (const file of SCRIPTS) {
    const scripts = reports.filter((s) => s.url === file || s.url === pathToFileURL(file).href);
    if (scripts.length === 0) continue;
    expect(scripts, `${file} was compiled more than once`).toHaveLength(1);
    const source = readFileSync(file, 'latin1');
    // bin/rfs.js compiles each file in Node's CommonJS wrapper, on a line of its own before it.
    const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
    const bytes = executedBytes((scripts[0] as Coverage['result'][number]).functions, wrapped.length);
    const lineStarts = [0];
    for (let i = wrapped.indexOf('\n'); i !== -1; i = wrapped.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    const map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    const { sources, mappings } = map.payload;
    const loaded = new Set<number>();
    for (const [line, column, index] of segments(mappings)) {
      if (bytes[(lineStarts[line + 1] as number) + column] === 1) loaded.add(index);
    }
    ran.set(
      file,
      [...loaded].map((i) => (sources[i] as string).replace(/^(\.\.\/)+/, '')),
    );
  }
  expect(ran.has(BUNDLE), 'the run executed no code of dist/bundle/rfs.cjs').toBe(true);
  return ran;
}

/** The source modules of which `args` ran any code, in either script. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  return [...(await modulesRunBy(args)).values()].flat();
}

describe('one page of `recordings list -o json`', () => {
  it('loads the client and the list, and none of the modules that must stay off its path', async () => {
    const loaded = await modulesLoadedBy(['recordings', 'list', '-o', 'json']);
    // The probe sees what it should: the client and the command did load.
    expect(loaded).toContain('src/api/client.ts');
    expect(loaded).toContain('src/api/transport.ts');
    expect(loaded.some((m) => m.startsWith('src/commands/recordings/list/'))).toBe(true);
    const offenders = OFF_THE_PATH.flatMap(([what, pattern]) => loaded.filter((m) => pattern.test(m)).map((m) => `${what}: ${m}`));
    expect(offenders).toEqual([]);
  });

  // One cached script for the page (bench/RESULTS.md, "How rfs starts"): the rest of the CLI is
  // in the second script, which V8 must not even compile for one page.
  it("compiles only the first of the bundle's two scripts", async () => {
    const ran = await modulesRunBy(['recordings', 'list', '-o', 'json']);
    expect([...ran.keys()]).toEqual([BUNDLE]);
  });

  it('loads these modules and no others', async () => {
    const loaded = await modulesLoadedBy(['recordings', 'list', '-o', 'json']);
    // What one page compiles and runs, by package (node_modules) or by folder of src/ (with the
    // files of shared/, where the schemas live): a package or folder added to the path shows here,
    // to be kept or moved off it.
    const group = (m: string) =>
      /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1] ?? (m.startsWith('src/shared/') ? m : (/^src\/[^/]+/.exec(m)?.[0] ?? m));
    expect([...new Set(loaded.map(group))].sort()).toEqual(PAGE_PATH);
  });

  it('sees a module of that list when a command does load it (the probe can fail)', async () => {
    // `--jq` loads the jq engine, from the second script: the same probe must report both.
    const ran = await modulesRunBy(['recordings', 'list', '--limit', '1', '--jq', '.id']);
    expect([...ran.keys()]).toEqual(SCRIPTS);
    const loaded = [...ran.values()].flat();
    expect(loaded.filter((m) => (OFF_THE_PATH[0] as (typeof OFF_THE_PATH)[number])[1].test(m)).length).toBeGreaterThan(0);
  });
});
