// Where one page of `rfs recordings list -o json` spends its time, from V8's CPU profiles
// (`--cpu-prof`): the built CLI against a local sandbox, with a warm code cache (a first run makes
// it, as a user's first run does), NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset.
//   node bench/profile-page.mjs [node binary] [runs] [sampling µs]
// Prints, per run: where the time above the floor goes (rfs and bench/floor-http.cjs, profiled
// in alternate runs, each sample given to one part of the path: the table bench/RESULTS.md keeps);
// the time of each part of the path: the bundle's modules by source (mapped
// through dist/bundle/rfs.cjs.map), Node's own modules, V8's compiling (what runs in no JS frame
// is `(program)`; compiling a function lazily is counted in the frame that called it) and the
// garbage collector. Inclusive times are given for the steps named in bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './startup.mjs';
import { RFS, ROOT, sandbox } from './lib.mjs';

const node = process.argv[2] ?? process.execPath;
const runs = Number(process.argv[3] ?? 10);
const interval = Number(process.argv[4] ?? 100);

const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');
const FLOOR = join(ROOT, 'bench', 'floor-http.cjs');
/** The source map of each script of the bundle, by file name (rfs.cjs, and any beside it). */
const maps = new Map(
  readdirSync(BUNDLE_DIR)
    .filter((f) => f.endsWith('.cjs') && existsSync(join(BUNDLE_DIR, `${f}.map`)))
    .map((f) => [f, new SourceMap(JSON.parse(readFileSync(join(BUNDLE_DIR, `${f}.map`), 'utf8')))]),
);

/** The source map entry of a frame of the bundle, or undefined for any other frame. */
function bundleEntry(frame) {
  const { url, lineNumber, columnNumber } = frame;
  const map = maps.get(url.slice(url.lastIndexOf('/') + 1));
  if (map === undefined || !url.includes('/dist/bundle/')) return undefined;
  // bin/rfs.js compiles each script in Node's CommonJS wrapper, on a line of its own before it.
  return map.findEntry(lineNumber - 1, columnNumber) ?? {};
}

/** The source module of a frame: `src/…`, a package, `node:…`, or V8's own. */
function moduleOf(frame) {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const entry = bundleEntry(frame);
  if (entry !== undefined) {
    const source = entry.originalSource?.replace(/^(\.\.\/)+/, '') ?? '(bundle)';
    return /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? source;
  }
  if (url.endsWith('/bin/rfs.js')) return 'bin/rfs.js';
  if (url.endsWith('/bench/floor-http.cjs')) return 'floor';
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

/**
 * A module's top level, as esbuild bundles it: the function that runs a module when it is first
 * imported starts at the module's first line and column.
 */
function isModuleTopLevel(frame) {
  const entry = bundleEntry(frame);
  return entry !== undefined && entry.originalLine === 0 && entry.originalColumn === 0;
}

/** Node compiling and running one of its own modules, the first time it is required. */
function isBuiltinLoad(frame) {
  return frame.url === 'node:internal/bootstrap/realm' && /^compileFor(Internal|Public)Loader$/.test(frame.functionName);
}

/** The built-in module a sample is loading (its innermost module top level), if it is loading one. */
function builtinLoaded(stack) {
  const at = stack.findIndex(({ frame }) => isBuiltinLoad(frame));
  if (at === -1) return undefined;
  // The frame just inside the innermost compileFor…Loader is the module's own top level.
  return at > 0 ? stack[at - 1].module : '(compiling)';
}

const CHECK = /^src\/(api\/contract\.ts|shared\/(answer-checks\.generated|check-runtime|json-depth)\.ts|core\/number-literals\.ts)$/;
const NODE_HTTP = /^node:(http|_http_\w+|net|internal\/(net|dns\/.*|stream_base_commons))$/;
const OUTPUT =
  /^src\/(output\/|core\/redact-stream\.ts)|^node:(tty|internal\/bootstrap\/switches\/is_main_thread|internal\/fs\/sync_write_stream|internal\/streams\/writable)$/;

/**
 * The parts of the path, for the table of what is above the floor; they add up to the whole run.
 * A sample goes to the first of PHASES that any frame of its stack belongs to (so a built-in
 * module is counted in the phase that required it); else to the part of its innermost frame
 * that one of PLACES names (the config read for the command line counts as the config); else to
 * the garbage collector, waiting, or Node's own. The floor's samples go through the same rules
 * (it has no bundle: only the request, the output and Node's own).
 */
const PHASES = [
  ['compiling the bundle with its code cache (`new vm.Script`)', (f, m) => f.functionName === 'Script' && m === 'node:vm'],
  ["Node's built-in modules, compiled and run on first require (`node:http`, `node:net`, the streams…)", (f) => isBuiltinLoad(f)],
  [
    "reading the bundle and its code cache, the cache's checks (`bin/rfs.js`, `node:zlib`)",
    // bin/rfs.js's own functions, but not the bundle they run.
    (f, m, stack) =>
      m === 'bin/rfs.js' &&
      !/^(runBundle)?$/.test(f.functionName) &&
      !stack.some(({ frame }) => frame.functionName === 'runInThisContext' || bundleEntry(frame) !== undefined),
  ],
  ['parsing and checking the answer (`api/contract.ts`, the generated checks, depth, numbers)', (_f, m) => CHECK.test(m)],
  ['the request (`api/`, `node:http`, `node:net`, the answer read)', (_f, m) => m.startsWith('src/api/') || NODE_HTTP.test(m)],
  ["module evaluation (the bundle's modules' top levels, with the built-ins they require)", (f) => isModuleTopLevel(f)],
];
const PLACES = [
  ['the output (`output/`, `process.stdout`; the floor: its JSON and write)', (_f, m) => OUTPUT.test(m) || m === 'floor'],
  [
    'declaring and parsing the command line (`cli/`, `commands/`, commander)',
    (_f, m) => /^src\/(cli|commands)\/|^(@commander-js\/extra-typings|commander)$/.test(m),
  ],
  ['the config (`config/`)', (_f, m) => m.startsWith('src/config/')],
  [
    "rfs's other code (`main.ts`, `core/`, the bundle's own top level, `bin/rfs.js`)",
    (_f, m) => m.startsWith('src/') || m === '(bundle)' || m === 'bin/rfs.js',
  ],
];
const REST = [
  ['garbage collection', (_f, m) => m === '(garbage collector)'],
  ["waiting (idle: the sandbox's answer)", (_f, m) => m === '(idle)'],
  ["Node's own start and end, the main script loaded, V8 outside JavaScript", () => true],
];
const PARTS = [...PHASES, ...PLACES, ...REST];

/** The part of PARTS a sample's stack (leaf first) belongs to. */
function partOf(stack) {
  const has = ([, test]) => stack.some(({ frame, module }) => test(frame, module, stack));
  const phase = PHASES.find(has);
  if (phase) return phase[0];
  for (const { frame, module } of stack) {
    const place = PLACES.find(([, test]) => test(frame, module));
    if (place) return place[0];
  }
  return REST.find(has)[0];
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

/** The profiles in `folder`, each as its samples: time in ms and stack (leaf first, with modules). */
function profilesIn(folder) {
  return readdirSync(folder).map((file) => {
    const profile = JSON.parse(readFileSync(join(folder, file), 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const stacks = new Map();
    return profile.samples.map((id, i) => {
      let stack = stacks.get(id);
      if (stack === undefined) {
        stack = [];
        for (let n = byId.get(id); n; n = byId.get(parent.get(n.id))) stack.push({ frame: n.callFrame, module: moduleOf(n.callFrame) });
        stacks.set(id, stack);
      }
      return { ms: (profile.timeDeltas[i + 1] ?? 0) / 1000, stack };
    });
  });
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The median over the runs of the time of each part of PARTS, and of the whole run: on a loaded
 * machine one run in a few stalls for tens of milliseconds somewhere, which a mean would spread
 * over every part. (Medians of the parts need not add up to the median of the whole.)
 */
function partsOf(profiles) {
  const runs = profiles.map((samples) => {
    const parts = new Map(PARTS.map(([name]) => [name, 0]));
    let total = 0;
    for (const { ms, stack } of samples) {
      total += ms;
      const name = partOf(stack);
      parts.set(name, parts.get(name) + ms);
    }
    return { parts, total };
  });
  return {
    parts: new Map(PARTS.map(([name]) => [name, median(runs.map((r) => r.parts.get(name)))])),
    total: median(runs.map((r) => r.total)),
  };
}

// RFS_PROFILE_FROM=<folder a run kept>: the tables again from its profiles, without new runs.
const kept = process.env.RFS_PROFILE_FROM;
const work = kept ?? mkdtempSync(join(tmpdir(), 'rfs-profile-'));
const sb = kept ? { stop: async () => {} } : await sandbox(['--rate-limit', '0']);
try {
  const env = cleanEnv({
    RFS_BASE_URL: sb.baseUrl ?? '',
    RFS_API_KEY: sb.apiKeys?.admin ?? '',
    RFS_CONFIG_DIR: '/nonexistent-rfs-bench',
    XDG_CACHE_HOME: join(work, 'cache'),
  });
  const page = ['recordings', 'list', '-o', 'json'];
  const profiles = join(work, 'profiles');
  const floorProfiles = join(work, 'floor-profiles');
  const before = loadavg()[0].toFixed(1);
  const profiled = (dir, ...args) => {
    const r = spawnSync(node, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${interval}`, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  };
  // The first run writes the code cache; the profiled runs read it.
  if (!kept) spawnSync(node, [RFS, ...page], { env, stdio: 'ignore' });
  // rfs and the floor alternate, so that both meet the machine's drift alike.
  for (let i = 0; i < (kept ? 0 : runs); i++) {
    profiled(profiles, RFS, ...page);
    profiled(floorProfiles, FLOOR);
  }
  const per = (ms) => (ms / rfsProfiles.length).toFixed(1);
  const share = (ms, of) => `${((100 * ms) / of).toFixed(0)} %`;
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const rfsProfiles = profilesIn(profiles);
  const rfs = partsOf(rfsProfiles);
  const floorList = profilesIn(floorProfiles);
  const floor = partsOf(floorList);
  process.stdout.write(
    `Node ${version}, ${rfsProfiles.length} runs each, ${interval} µs sampling, load average ${before} → ${loadavg()[0].toFixed(1)}; ` +
      `rfs ${rfs.total.toFixed(1)} ms a run, the floor ${floor.total.toFixed(1)} ms (medians)\n\n`,
  );
  process.stdout.write(
    '| part of the run (each sample counted once; median over the runs) | rfs | the floor | above the floor |\n| --- | --- | --- | --- |\n',
  );
  for (const [name, ms] of rfs.parts) {
    const under = floor.parts.get(name);
    process.stdout.write(`| ${name} | ${ms.toFixed(1)} ms | ${under.toFixed(1)} ms | ${(ms - under).toFixed(1)} ms |\n`);
  }
  const above = rfs.total - floor.total;
  process.stdout.write(`| a run in all | ${rfs.total.toFixed(1)} ms | ${floor.total.toFixed(1)} ms | ${above.toFixed(1)} ms |\n`);
  // Which built-in modules: the time of each one's own top level (its compile and run, without
  // the modules it requires in turn), per run.
  const builtins = (list) => {
    const by = new Map();
    for (const { ms, stack } of list.flat()) {
      const name = builtinLoaded(stack);
      if (name !== undefined) by.set(name, (by.get(name) ?? 0) + ms / list.length);
    }
    return by;
  };
  const rfsBuiltins = builtins(rfsProfiles);
  const floorBuiltins = builtins(floorList);
  process.stdout.write('\n| built-in module (its own top level, mean a run) | rfs | the floor |\n| --- | --- | --- |\n');
  for (const [name, ms] of [...rfsBuiltins].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    process.stdout.write(`| ${name} | ${ms.toFixed(1)} ms | ${(floorBuiltins.get(name) ?? 0).toFixed(1)} ms |\n`);
  }

  const self = new Map();
  // RFS_PROFILE_DETAIL=<step number>: self time by module and function inside that step.
  const detailStep = process.env.RFS_PROFILE_DETAIL === undefined ? undefined : STEPS[Number(process.env.RFS_PROFILE_DETAIL)];
  const detail = new Map();
  const steps = new Map(STEPS.map(([name]) => [name, 0]));
  let total = 0;
  for (const { ms, stack } of rfsProfiles.flat()) {
    total += ms;
    const [leaf] = stack;
    self.set(leaf.module, (self.get(leaf.module) ?? 0) + ms);
    if (detailStep && stack.some(({ frame, module }) => detailStep[1](frame, module))) {
      const entry = bundleEntry(leaf.frame);
      const where = `${leaf.module} ${entry?.name ?? leaf.frame.functionName}${entry?.originalLine === undefined ? '' : `:${entry.originalLine + 1}`}`;
      detail.set(where, (detail.get(where) ?? 0) + ms);
    }
    for (const [name, test] of STEPS) if (stack.some(({ frame, module }) => test(frame, module))) steps.set(name, steps.get(name) + ms);
  }
  process.stdout.write('\n| step of rfs (inclusive) | ms a run | share |\n| --- | --- | --- |\n');
  for (const [name, ms] of steps) process.stdout.write(`| ${name} | ${per(ms)} | ${share(ms, total)} |\n`);
  process.stdout.write('\n| module of rfs (self time) | ms a run | share |\n| --- | --- | --- |\n');
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  for (const [mod, ms] of rows) process.stdout.write(`| ${mod} | ${per(ms)} | ${share(ms, total)} |\n`);
  if (detailStep) {
    process.stdout.write(`\n| inside: ${detailStep[0]} (self time) | ms a run |\n| --- | --- |\n`);
    for (const [where, ms] of [...detail].sort((a, b) => b[1] - a[1]).slice(0, 30)) process.stdout.write(`| ${where} | ${per(ms)} |\n`);
  }
} finally {
  await sb.stop();
  // RFS_PROFILE_KEEP=1: the profiles stay, to be opened in a browser's devtools.
  if (process.env.RFS_PROFILE_KEEP || kept) process.stderr.write(`profiles kept in ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
