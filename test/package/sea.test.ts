// The single executable (scripts/package.mjs → dist/rfs-linux-x64), run the way a server would
// run it: copied alone into an empty folder with no node_modules above it and no Node on PATH,
// serving the sandbox and talking to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINUX_X64, needs } from '../helpers/platform.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'dist', 'rfs-linux-x64');
const STEP_TIMEOUT_MS = 30_000;

// The signed vector of the spec (verify-signature).
const VECTOR = {
  secret: 'whsec_test_secret',
  timestamp: '1700000000',
  body: '{"id":"evt_1","type":"filing.created"}',
  signature: 'sha256=57b147fd6da72d808ece3014a78236a2effc7db6f448c57ab42e8d88c6d54c81',
};

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function runProcess(
  file: string,
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {},
): Promise<Finished> {
  return new Promise((done, fail) => {
    const child = track(spawn(file, args, { cwd: o.cwd, env: o.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? STEP_TIMEOUT_MS - 5_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
    child.stdin!.end(o.stdin ?? '');
  });
}

/** Newest modification time of the files the executable is built from. */
async function newestSource(): Promise<number> {
  let newest = 0;
  const names = (await readdir(join(ROOT, 'src'), { recursive: true })).map((name) => join(ROOT, 'src', name));
  for (const file of [...names, join(ROOT, 'scripts', 'package.mjs'), join(ROOT, 'package.json')]) {
    const info = await stat(file);
    if (info.isFile()) newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

async function isFresh(file: string): Promise<boolean> {
  try {
    return (await stat(file)).mtimeMs > (await newestSource());
  } catch {
    return false;
  }
}

let dir = '';
let exe = '';
let env: NodeJS.ProcessEnv = {};
let sandbox: ChildProcess | undefined;

function rfs(args: string[], stdin?: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runProcess(exe, args, { cwd: dir, env: { ...env, ...extraEnv }, ...(stdin === undefined ? {} : { stdin }) });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rfs-sea-'));
  exe = join(dir, 'rfs-linux-x64');
  if (!LINUX_X64.met) return;
  // Built once by `npm run build` (scripts/build.mjs), not here: a test that builds it costs
  // every run that follows a change of src/ about 17 s.
  if (!(await isFresh(BUILT))) {
    throw new Error(`${BUILT} is missing or older than src/: \`npm run build\` builds it`);
  }
  await copyFile(BUILT, exe);
  const config = join(dir, 'config');
  await mkdir(config, { recursive: true, mode: 0o700 });
  // No PATH entry holds a Node: the executable has to bring its own.
  env = {
    PATH: join(dir, 'no-bin'),
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    XDG_STATE_HOME: join(dir, 'xdg-state'),
    RFS_CONFIG_DIR: config,
    NO_COLOR: '1',
    TZ: 'UTC',
  };
}, STEP_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!LINUX_X64.met)(needs(LINUX_X64, 'the single executable, alone in an empty folder'), () => {
  it('has no node_modules beside it or in any folder above it', async () => {
    expect(await readdir(dir)).toContain('rfs-linux-x64');
    for (let folder = dir; ; folder = dirname(folder)) {
      expect(existsSync(join(folder, 'node_modules')), `${folder}/node_modules`).toBe(false);
      if (dirname(folder) === folder) break;
    }
    expect(((await stat(exe)).mode & 0o777).toString(8)).toBe('755');
  });

  it(
    'prints the version of package.json, and nothing on stderr',
    async () => {
      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const result = await rfs(['--version']);
      expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'prints the help of the whole command tree',
    async () => {
      const result = await rfs(['--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^Usage: rfs /);
      for (const command of ['auth', 'recordings', 'file', 'webhooks', 'deliveries', 'verify-signature', 'sync', 'completion', 'sandbox']) {
        expect(result.stdout).toContain(command);
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'prints the overview pre-rendered at build time exactly as the CLI renders it',
    async () => {
      const { spawnSync } = await import('node:child_process');
      const rendered = spawnSync(process.execPath, [join(ROOT, 'dist', 'bundle', 'rfs.cjs'), '--help'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', COLUMNS: '80', NO_COLOR: '1' },
      });
      expect(rendered.status).toBe(0);
      const result = await rfs(['--help'], undefined, { NODE_DEBUG: 'rfs-sea' });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(rendered.stdout);
      // From the asset: the bundle (which would say whether V8 took its cache) never ran.
      expect(result.stderr).toBe('');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'prints a bash completion script',
    async () => {
      const result = await rfs(['completion', 'bash']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('complete -F');
      expect(result.stdout).toContain('recordings');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'verifies the signed vector of the spec',
    async () => {
      const args = [
        'verify-signature',
        '--timestamp',
        VECTOR.timestamp,
        '--signature',
        VECTOR.signature,
        '--now',
        VECTOR.timestamp,
        '-o',
        'json',
      ];
      const valid = await rfs(args, VECTOR.body, { RFS_WEBHOOK_SECRET: VECTOR.secret });
      expect(valid.code).toBe(0);
      expect(JSON.parse(valid.stdout)).toEqual({ valid: true, reason: null, ageSeconds: 0 });
      const tampered = await rfs(args, VECTOR.body.replace('evt_1', 'evt_2'), { RFS_WEBHOOK_SECRET: VECTOR.secret });
      expect(tampered.code).toBe(1);
      expect(JSON.parse(tampered.stdout)).toMatchObject({ valid: false, reason: 'mismatch' });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'serves the sandbox and lists, fetches and files a recording against it, then stops on SIGTERM',
    async () => {
      const child = track(
        spawn(exe, ['sandbox', '--host', '127.0.0.1', '--port', '0', '--seed', '7'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      sandbox = child;
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      const line = await new Promise<string>((done, fail) => {
        const lines = createInterface({ input: child.stdout! });
        lines.once('line', done);
        child.once('exit', (code) => fail(new Error(`the sandbox exited (${code}) before its JSON line: ${stderr}`)));
      });
      const started = JSON.parse(line) as { baseUrl: string; apiKeys: Record<string, string> };
      expect(started.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
      expect(started.apiKeys.admin).toMatch(/^service_pk_/);

      const api = { RFS_BASE_URL: started.baseUrl, RFS_API_KEY: started.apiKeys.admin };
      const list = await rfs(['recordings', 'list', '-o', 'json'], undefined, api);
      expect(list.code, list.stderr).toBe(0);
      const items = JSON.parse(list.stdout) as { id: string; syncCount: number }[];
      expect(items.length).toBeGreaterThan(0);
      const id = items[0]!.id;

      // --jq runs jq from the executable's own asset (src/lazy/jq-engine.cjs: node:sea's
      // getAsset), over the same listing: each item is one input of jq's stream.
      const jq = await rfs(['recordings', 'list', '--jq', '.id'], undefined, api);
      expect(jq.code, jq.stderr).toBe(0);
      expect(jq.stdout).toBe(items.map((item) => `${item.id}\n`).join(''));
      const slurped = await rfs(['recordings', 'list', '--jq', '[., inputs] | length'], undefined, api);
      expect(slurped).toMatchObject({ code: 0, stdout: `${items.length}\n` });

      // stdout is not a terminal, so the output is JSON without asking.
      const detail = await rfs(['recordings', 'get', id], undefined, api);
      expect(detail.code, detail.stderr).toBe(0);
      expect(JSON.parse(detail.stdout)).toMatchObject({ id, status: 'COMPLETED' });

      const filed = await rfs(['file', id, '--provider', 'crm', '--external-id', 'X', '-o', 'json'], undefined, api);
      expect(filed.code, filed.stderr).toBe(0);
      expect(JSON.parse(filed.stdout)).toMatchObject({ id, syncCount: 1, syncMetadata: { provider: 'crm', externalId: 'X' } });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('rfs sandbox: stopped');
      expect(stderr).not.toMatch(/ExperimentalWarning|Warning:/);
    },
    STEP_TIMEOUT_MS * 2,
  );

  it(
    'serves the inspector page of webhooks listen --inspect from its own assets, with no dist/ beside it',
    async () => {
      const child = track(
        spawn(exe, ['webhooks', 'listen', '--port', '0', '--inspect', '127.0.0.1:0', '--secret-env', 'HOOK_SECRET'], {
          cwd: dir,
          env: { ...env, HOOK_SECRET: VECTOR.secret, XDG_STATE_HOME: join(dir, 'state') },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      const url = await new Promise<string>((done, fail) => {
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => {
          stderr += c.toString('utf8');
          const found = /inspector on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
          if (found?.[1] !== undefined) done(found[1]);
        });
        child.once('exit', (code) => fail(new Error(`listen exited (${code}) before the inspector served: ${stderr}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>rfs inspector</title>');
      const script = await fetch(new URL('app.js', url));
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(1000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    },
    STEP_TIMEOUT_MS,
  );

  // A release's executable ignores NODE_OPTIONS (execArgvExtension "none"); one built on a Node
  // that ignores that setting reads it, and must say so rather than pass for a release's.
  it(
    'says when it read NODE_OPTIONS, and is silent when it did not',
    async () => {
      const planted = join(dir, 'planted.cjs');
      const mark = join(dir, 'planted-ran');
      await writeFile(planted, `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran');\n`);
      const result = await rfs(['--version'], undefined, { NODE_OPTIONS: `--require ${planted}` });
      expect(result.code).toBe(0);
      const read = existsSync(mark);
      const notice = /^rfs: NODE_OPTIONS was read: this executable was built on Node v[\d.]+, which ignores execArgvExtension/m;
      if (read) expect(result.stderr).toMatch(notice);
      else expect(result.stderr).toBe('');
      // Which of the two this build is, from the build Node itself: the blob shows whether it reads the setting.
      const { ignoresExecArgvExtension } = (await import(join(ROOT, 'scripts', 'package.mjs'))) as {
        ignoresExecArgvExtension: (work: string) => boolean;
      };
      expect(read).toBe(ignoresExecArgvExtension(await mkdtemp(join(dir, 'probe-'))));
    },
    STEP_TIMEOUT_MS,
  );

  it('left no process running', () => {
    expect(sandbox === undefined || sandbox.exitCode !== null || sandbox.signalCode !== null).toBe(true);
    expect(children.size).toBe(0);
  });
});
