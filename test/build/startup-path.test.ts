// What one page of `recordings list` loads (ARCHITECTURE.md, "How rfs starts"). Every module
// on that path is compiled (or read from the code cache) at every start of every command that
// talks to the service; the ones below have no business there. Checked on the ES module build,
// whose chunk boundaries are the bundle's lazy boundaries (both come from the same `import()`
// calls): V8's coverage says which files of dist/ the run executed, and dist/modules.json
// (scripts/build.mjs) which source modules each holds.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
];

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

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

/** The source modules that `args` loaded: those of every file of dist/ that it executed. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const coverage = mkdtempSync(join(work, 'coverage-'));
  const run = await runRfs(args, {
    env: {
      RFS_CONFIG_DIR: join(work, 'config'),
      RFS_BASE_URL: sandbox.baseUrl,
      RFS_API_KEY: sandbox.apiKeys.admin,
      // The ES module build (bin/rfs.js), and V8's record of the scripts it ran.
      NODE_DISABLE_COMPILE_CACHE: '1',
      NODE_V8_COVERAGE: coverage,
    },
  });
  expect(run.code, run.stderr).toBe(0);
  const held = JSON.parse(readFileSync(join(DIST, 'modules.json'), 'utf8')) as Record<string, string[]>;
  const prefix = pathToFileURL(DIST).href;
  const files = new Set<string>();
  for (const report of readdirSync(coverage)) {
    const { result } = JSON.parse(readFileSync(join(coverage, report), 'utf8')) as { result: { url: string }[] };
    for (const { url } of result) if (url.startsWith(prefix)) files.add(url.slice(prefix.length));
  }
  expect(files, 'the run executed no file of dist/').toContain('main.js');
  return [...files].flatMap((file) => {
    const modules = held[file];
    if (modules === undefined) throw new Error(`dist/modules.json does not know ${file}: run the build again`);
    return modules;
  });
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

  it('sees a module of that list when a command does load it (the probe can fail)', async () => {
    // `--jq` loads the jq engine: the same probe must report it.
    const loaded = await modulesLoadedBy(['recordings', 'list', '--limit', '1', '--jq', '.id']);
    expect(loaded.filter((m) => (OFF_THE_PATH[0] as (typeof OFF_THE_PATH)[number])[1].test(m)).length).toBeGreaterThan(0);
  });
});
