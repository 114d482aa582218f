// `import { startSandbox } from 'rfs-cli/sandbox'` as an integrator's test suite writes it: a child
// Node process in a folder of its own, where node_modules/rfs-cli is this package, resolves the name
// through package.json `exports`. A resolve hook lists every module the import loads.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIBRARY = join(ROOT, 'dist', 'sandbox', 'index.js');

let dir: string;
beforeAll(async () => {
  if (!existsSync(LIBRARY)) throw new Error('dist/sandbox/index.js is missing: run npm run build first');
  dir = await mkdtemp(join(tmpdir(), 'rfs-integrator-'));
  await mkdir(join(dir, 'node_modules', '@types'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules', 'rfs-cli'), 'dir');
  await symlink(join(ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'an-integration', private: true, type: 'module' }));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RFS_LOADED, resolved.url + '\\n');
  return resolved;
}
`;
const REGISTER = `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`;
const INTEGRATION = `
import { startSandbox } from 'rfs-cli/sandbox';
const sandbox = await startSandbox({ port: 0, seed: 'integrator', recordings: 3 });
try {
  const health = await sandbox.control.health();
  const list = await fetch(sandbox.baseUrl + '/api/v1/recordings', { headers: { authorization: 'Bearer ' + sandbox.apiKeys.admin } });
  const body = await list.json();
  await sandbox.control.saveSnapshot('start');
  const requests = await sandbox.control.requests();
  console.log(JSON.stringify({ health, status: list.status, count: body.data.length, logged: requests.map((r) => [r.method, r.path, r.key, r.status]) }));
} finally {
  await sandbox.close();
}
`;

describe('rfs-cli/sandbox, imported by its name', () => {
  it('starts a sandbox with typed control, and loads nothing of the CLI', async () => {
    await writeFile(join(dir, 'hooks.mjs'), HOOKS);
    await writeFile(join(dir, 'register.mjs'), REGISTER);
    await writeFile(join(dir, 'integration.mjs'), INTEGRATION);
    const loadedFile = join(dir, 'loaded.txt');
    await writeFile(loadedFile, '');
    const { stdout } = await run(process.execPath, ['--import', './register.mjs', 'integration.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH, RFS_LOADED: loadedFile },
      timeout: 20_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      health: { status: 'ok' },
      status: 200,
      count: expect.any(Number),
      logged: [['GET', '/api/v1/recordings', 'admin', 200]],
    });

    const loaded = [...new Set((await readFile(loadedFile, 'utf8')).split('\n').filter((u) => u !== ''))];
    const ours = loaded.filter((u) => !u.startsWith('node:') && !u.endsWith('/hooks.mjs') && !u.endsWith('/register.mjs'));
    // The integration itself, and the library as one file found through `exports`: nothing else.
    expect(ours).toEqual([pathToFileURL(join(dir, 'integration.mjs')).href, pathToFileURL(LIBRARY).href]);
    for (const url of loaded)
      expect(url).not.toMatch(
        /\/src\/(cli|commands)\/|dist\/main\.js|dist\/chunks\/|node_modules\/(commander|chalk|ora|@inquirer|conf|undici|cli-table3)\//,
      );
  });

  it('ships type declarations: the control methods are typed, and misuse does not compile', async () => {
    await writeFile(
      join(dir, 'typed.ts'),
      `
import { startSandbox, SandboxControlError, type LoggedRequest, type RunningSandbox, type SandboxState } from 'rfs-cli/sandbox';
const sandbox: RunningSandbox = await startSandbox({ port: 0, seed: 1, recordings: 10, fixtures: [{ title: 'A' }] });
const log: LoggedRequest[] = await sandbox.control.requests(0);
const status: number | null = log[0]?.status ?? null;
const state: SandboxState = await sandbox.control.exportState({ includeSeed: true });
const seed: string = state.seed;
await sandbox.control.setFaults({ script: [{ match: '/filings', method: 'POST', kind: 'error-after', times: 1 }] });
await sandbox.control.setDeliveryFaults({ duplicate: 0.5 });
const recording = await sandbox.control.createRecording({ status: 'COMPLETED' });
const title: string = recording.title;
const isError: boolean = new SandboxControlError(400, 'INVALID_INPUT', 'name', 'bad') instanceof Error;
// @ts-expect-error: not a recording status
await sandbox.control.setStatus(recording.id, 'FINISHED');
// @ts-expect-error: not a fault kind
await sandbox.control.setFaults({ script: [{ kind: 'explode', times: 1 }] });
// @ts-expect-error: baseUrl is a string
const port: number = sandbox.baseUrl;
await sandbox.close();
export { status, seed, title, isError, port };
`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      // The integrator's file is what is judged; the declarations were made by tsc from checked
      // sources, and checking @types/node again costs seconds.
      '--skipLibCheck',
      'typed.ts',
    ];
    const result = await run(process.execPath, [tsc, ...args], { cwd: dir, timeout: 60_000 }).catch(
      (error: { stdout: string; code: number }) => error,
    );
    expect('stdout' in result ? result.stdout : '').toBe('');
  }, 90_000);
});
