// Where one page of `rfs recordings list -o json` spends its time, from V8's CPU profiles
// (`--cpu-prof`): the built CLI against a local sandbox, with a warm code cache (a first run makes
// it, as a user's first run does), NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset.
//   node bench/profile-page.mjs [node binary] [runs] [sampling µs]
// Prints, per run, the time of each part of the path: the bundle's modules by source (mapped
// through dist/bundle/rfs.cjs.map), Node's own modules, V8's compiling (what runs in no JS frame
// is `(program)`; compiling a function lazily is counted in the frame that called it) and the
// garbage collector. Inclusive times are given for the steps named in bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './startup.mjs';
import { RFS, ROOT, sandbox } from './lib.mjs';

const node = process.argv[2] ?? process.execPath;
const runs = Number(process.argv[3] ?? 10);
const interval = Number(process.argv[4] ?? 100);

const BUNDLE = join(ROOT, 'dist', 'bundle', 'rfs.cjs');
const map = new SourceMap(JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')));

/** The source module of a frame: `src/…`, a package, `node:…`, or V8's own. */
function moduleOf(frame) {
  const { url, lineNumber, columnNumber, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.endsWith('/dist/bundle/rfs.cjs')) {
    // bin/rfs.js compiles the bundle in Node's CommonJS wrapper, on a line of its own before it.
    const entry = map.findEntry(lineNumber - 1, columnNumber);
    const source = entry?.originalSource?.replace(/^(\.\.\/)+/, '') ?? '(bundle)';
    return /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? source;
  }
  if (url.endsWith('/bin/rfs.js')) return 'bin/rfs.js';
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

/** Steps whose inclusive time is reported: any frame on the stack of that module (or frame). */
const STEPS = [
  ['compiling the bundle with its code cache (`new vm.Script`)', (f, m) => f.functionName === 'Script' && m === 'node:vm'],
  ['parsing and checking the answer (`api/contract.ts`, the generated checks)', (_f, m) => m === 'src/api/contract.ts'],
  ['  of which the generated checks', (_f, m) => m === 'src/shared/answer-checks.generated.ts'],
  ['  of which the depth check of the bytes (`shared/json-depth.ts`)', (_f, m) => m === 'src/shared/json-depth.ts'],
  ['  of which numbers kept as sent (`core/number-literals.ts`)', (_f, m) => m === 'src/core/number-literals.ts'],
  ['declaring the commands (`cli/program.ts`, commander)', (_f, m) => m === 'src/cli/program.ts'],
  ['the config (`config/`)', (_f, m) => m.startsWith('src/config/')],
  ['the list written (`output/`)', (_f, m) => m.startsWith('src/output/')],
  ['zod (must be 0)', (_f, m) => m === 'zod'],
];

const work = mkdtempSync(join(tmpdir(), 'rfs-profile-'));
const sb = await sandbox(['--rate-limit', '0']);
try {
  const env = cleanEnv({
    RFS_BASE_URL: sb.baseUrl,
    RFS_API_KEY: sb.apiKeys.admin,
    RFS_CONFIG_DIR: '/nonexistent-rfs-bench',
    XDG_CACHE_HOME: join(work, 'cache'),
  });
  const page = ['recordings', 'list', '-o', 'json'];
  // The first run writes the code cache; the profiled runs read it.
  spawnSync(node, [RFS, ...page], { env, stdio: 'ignore' });
  const profiles = join(work, 'profiles');
  const before = loadavg()[0].toFixed(1);
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(node, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, `--cpu-prof-interval=${interval}`, RFS, ...page], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`the page exited ${r.status}`);
  }
  const self = new Map();
  // RFS_PROFILE_DETAIL=<step number>: self time by module and function inside that step.
  const detailStep = process.env.RFS_PROFILE_DETAIL === undefined ? undefined : STEPS[Number(process.env.RFS_PROFILE_DETAIL)];
  const detail = new Map();
  const steps = new Map(STEPS.map(([name]) => [name, 0]));
  let total = 0;
  for (const file of readdirSync(profiles)) {
    const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    profile.samples.forEach((id, i) => {
      const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      total += dt;
      const leaf = byId.get(id);
      const mod = moduleOf(leaf.callFrame);
      self.set(mod, (self.get(mod) ?? 0) + dt);
      if (detailStep) {
        for (let n = leaf; n; n = byId.get(parent.get(n.id))) {
          if (detailStep[1](n.callFrame, moduleOf(n.callFrame))) {
            const f = leaf.callFrame;
            const entry = f.url.endsWith('/dist/bundle/rfs.cjs') ? map.findEntry(f.lineNumber - 1, f.columnNumber) : undefined;
            const where = `${mod} ${entry?.name ?? f.functionName}${entry?.originalLine === undefined ? '' : `:${entry.originalLine + 1}`}`;
            detail.set(where, (detail.get(where) ?? 0) + dt);
            break;
          }
        }
      }
      const seen = new Set();
      for (let n = leaf; n; n = byId.get(parent.get(n.id))) {
        const m = moduleOf(n.callFrame);
        for (const [name, test] of STEPS) {
          if (!seen.has(name) && test(n.callFrame, m)) {
            seen.add(name);
            steps.set(name, steps.get(name) + dt);
          }
        }
      }
    });
  }
  const per = (ms) => (ms / runs).toFixed(1);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stdout.write(
    `Node ${version}, ${runs} runs, ${interval} µs sampling, load average ${before} → ${loadavg()[0].toFixed(1)}; ${per(total)} ms a run\n\n`,
  );
  process.stdout.write('| step (inclusive) | ms a run | share |\n| --- | --- | --- |\n');
  for (const [name, ms] of steps) process.stdout.write(`| ${name} | ${per(ms)} | ${((100 * ms) / total).toFixed(0)} % |\n`);
  process.stdout.write('\n| module (self time) | ms a run | share |\n| --- | --- | --- |\n');
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  for (const [mod, ms] of rows) process.stdout.write(`| ${mod} | ${per(ms)} | ${((100 * ms) / total).toFixed(0)} % |\n`);
  if (detailStep) {
    process.stdout.write(`\n| inside: ${detailStep[0]} (self time) | ms a run |\n| --- | --- |\n`);
    for (const [where, ms] of [...detail].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stdout.write(`| ${where} | ${per(ms)} |\n`);
  }
} finally {
  await sb.stop();
  rmSync(work, { recursive: true, force: true });
}
