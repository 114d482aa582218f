// Builds dist/rfs-linux-x64: one file that runs every rfs command, the sandbox included, with
// no Node.js installation and no node_modules beside it (README, "Single executable").
//
// It uses Node's own single-executable-application support (SEA) with the Node that runs this
// script, so nothing is downloaded:
//   1. esbuild bundles src/main.ts into ONE CommonJS file with every dependency inlined
//      (scripts/commonjs-bundle.mjs). Inside a SEA, require() loads only built-in modules and
//      there is no file-based import(), so nothing may be left outside the bundle.
//   2. That bundle, wrapped as a CommonJS function, is run under this Node (one page of
//      `recordings list` from the bundle's own sandbox, then `--help`) and V8's code cache is
//      taken from it afterwards, so it holds the functions those start-ups run.
//   3. `node --experimental-sea-config` makes the preparation blob: the tiny main script
//      src/sea/entry.ts (which answers `--version` at once and otherwise compiles the bundle
//      with that cache) and, as assets, the bundle and its cache.
//   4. A copy of this Node binary gets the blob injected as the ELF note NODE_SEA_BLOB, and the
//      SEA fuse flipped, by postject (the injector the Node project publishes).
//
// Usage: node scripts/package.mjs [--out <file>] [--no-code-cache] [--no-minify] [--keep] [--if-supported]
//                                 [--target <platform> --target-node <file>]
//   --no-code-cache and --no-minify exist to measure their effect on start-up; --keep leaves the
//   bundles, the config and the blob in the work folder and prints where it is.
//   --target and --target-node make the executable of another platform (scripts/release.mjs):
//   see "Other platforms" below.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleCommonJs, bundleJqEngine, trainCodeCache, writeCommonJsFunction } from './commonjs-bundle.mjs';

// The fuse string is fixed by the Node project (doc/api/single-executable-applications.md,
// and POSTJECT_SENTINEL_FUSE in src/node_sea.cc); it is checked against the binary below.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// Asset names, as src/sea/entry.ts reads them.
const APP_ASSET = 'rfs-app.js';
const CACHE_ASSET = 'rfs-app.cache';
/** --jq's engine, read only when --jq runs (src/lazy/jq-engine.cjs). */
const JQ_ASSET = 'jq-engine.cjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** This machine, as the targets below name platforms. */
const HOST = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

const { values: flags } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, 'dist', 'rfs-linux-x64') },
    'no-code-cache': { type: 'boolean', default: false },
    'no-minify': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // npm test builds the executable before vitest runs (so that the tests time rfs, not the
    // build); on a machine that cannot build it, its test is skipped and so is the build.
    'if-supported': { type: 'boolean', default: false },
    target: { type: 'string', default: HOST },
    'target-node': { type: 'string', default: process.execPath },
  },
});

// ---- Other platforms (scripts/release.mjs) ----
// The blob is made by the Node that runs this script, and Node requires the binary it is injected
// into to be of the same version (doc/api/single-executable-applications.md), so release.mjs
// runs this script with the linux-x64 Node of the release's version and hands it the target's
// Node binary of that version. The same page of the docs says that code cache and snapshot "can
// only be loaded on the same platform where they are compiled": for another platform neither
// Node's code cache of the main script nor the trained cache of the bundle goes in (entry.ts
// then compiles the bundle; slower start-up, nothing else), and the executable is not run here
// (scripts/release-check.mjs runs it under qemu-user or wine, or checks its format).
// A macOS Node is signed; the injection would leave a broken signature, worse than none, so it
// is removed first (macho-unsign), and postject puts the blob in a segment of its own.
// Not darwin-arm64: macOS starts arm64 code only with a code signature, which nothing here can
// make (scripts/release.mjs, MACOS_ARM64).
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'win-x64'];
if (!TARGETS.includes(flags.target)) throw new Error(`scripts/package.mjs: --target is one of ${TARGETS.join(', ')}, not ${flags.target}`);
const native = flags.target === HOST;
const targetNode = resolve(flags['target-node']);

const unsupported =
  process.platform !== 'linux'
    ? `it builds a Linux executable; this is ${process.platform}`
    : process.config.variables.single_executable_application
      ? undefined
      : `this Node (${process.execPath}) was built without single-executable support`;
if (unsupported) {
  if (!flags['if-supported']) throw new Error(`scripts/package.mjs: ${unsupported}`);
  process.stdout.write(`scripts/package.mjs: no single executable built (${unsupported})\n`);
  process.exit(0);
}

const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const out = resolve(flags.out);
const work = await mkdtemp(join(tmpdir(), 'rfs-package-'));
const started = Date.now();

/** Runs `file` quietly; its output is shown only when it fails. */
function quietly(file, args, options = {}) {
  try {
    return execFileSync(file, args, { cwd: work, stdio: 'pipe', encoding: 'utf8', ...options });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

try {
  // 1. The CLI as one CommonJS function (the wrapper Node itself puts around a CommonJS file).
  const app = await bundleCommonJs('src/main.ts', join(work, 'app.cjs'), { minify: !flags['no-minify'] });
  const appAsset = join(work, APP_ASSET);
  await writeCommonJsFunction(app, appAsset);
  const entry = join(work, 'entry.cjs');
  await bundleCommonJs('src/sea/entry.ts', entry);

  // 2. The code cache, taken after one run of the very text the executable compiles. V8 keeps
  // it only for the same V8 version, flags and source, which is why this Node is the one used.
  const jqAsset = join(work, JQ_ASSET);
  await bundleJqEngine(jqAsset);
  const assets = { [APP_ASSET]: appAsset, [JQ_ASSET]: jqAsset };
  const codeCache = native && !flags['no-code-cache'];
  if (codeCache) {
    const cacheAsset = join(work, CACHE_ASSET);
    trainCodeCache(appAsset, cacheAsset, join(work, 'train-config'));
    assets[CACHE_ASSET] = cacheAsset;
  }

  // 3. The preparation blob.
  const blob = join(work, 'rfs.blob');
  const config = join(work, 'sea-config.json');
  const seaConfig = {
    main: entry,
    output: blob,
    // Node 20 prints "ExperimentalWarning: Single executable application is an experimental
    // feature" on every start unless this is set.
    disableExperimentalSEAWarning: true,
    // The entry is tiny; its cache costs nothing and saves a compile.
    useCodeCache: codeCache,
    useSnapshot: false,
    assets,
  };
  await writeFile(config, `${JSON.stringify(seaConfig, null, 2)}\n`);
  // It says "Wrote single executable preparation blob to …" on success.
  quietly(process.execPath, ['--experimental-sea-config', config]);

  // 4. A copy of the target's Node (this Node by default) with the blob injected.
  let node = await readFile(targetNode);
  if (!node.includes(`${SEA_FUSE}:0`)) {
    throw new Error(`${targetNode} has no unflipped ${SEA_FUSE} fuse (already a SEA, or another Node build)`);
  }
  if (!node.includes(`${process.version}\0`)) throw new Error(`${targetNode} is not Node ${process.version}, which made the blob`);
  if (flags.target.startsWith('darwin-')) {
    const { unsign } = require('macho-unsign');
    const unsigned = unsign(node);
    if (unsigned !== null) node = Buffer.from(unsigned);
  }
  const exe = join(work, flags.target.startsWith('win-') ? 'rfs.exe' : 'rfs');
  await writeFile(exe, node);
  await chmod(exe, 0o755);
  const { inject } = require('postject');
  // postject reports progress with console.log, and its ELF library warns about note sections
  // it cannot name ("Can't find string offset for section name '.note'", harmless) with
  // console.warn: keep both for a failure, where they may explain it.
  const { log, warn } = console;
  const chatter = [];
  console.log = console.warn = (...parts) => void chatter.push(parts.join(' '));
  try {
    await inject(exe, 'NODE_SEA_BLOB', await readFile(blob), {
      sentinelFuse: SEA_FUSE,
      ...(flags.target.startsWith('darwin-') ? { machoSegmentName: 'NODE_SEA' } : {}),
    });
  } catch (error) {
    process.stderr.write(chatter.map((line) => `postject: ${line}\n`).join(''));
    throw error;
  } finally {
    Object.assign(console, { log, warn });
  }

  // Smoke checks before the file takes its place: the fast path, the bundle, and the cache.
  if (native) await smokeCheck(exe);

  // Move into place atomically: nobody sees a half-written executable. dist/ may be rebuilt by
  // scripts/build.mjs at any time, so only this one file is touched there.
  await mkdir(dirname(out), { recursive: true });
  const partial = `${out}.partial-${process.pid}`;
  await copyFile(exe, partial);
  await chmod(partial, 0o755);
  await rename(partial, out);

  const { size } = await stat(out);
  const kib = (bytes) => `${Math.round(bytes / 1024)} KiB`;
  const cacheSize = assets[CACHE_ASSET] === undefined ? 'no code cache' : `code cache ${kib((await stat(assets[CACHE_ASSET])).size)}`;
  process.stdout.write(
    `${out}: ${(size / 1024 / 1024).toFixed(1)} MiB (${flags.target}, Node ${process.version}; bundle ${kib(app.length)}` +
      `${flags['no-minify'] ? ', not minified' : ', minified'}; ${cacheSize}) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  if (flags.keep) process.stdout.write(`work folder kept: ${work}\n`);
} finally {
  if (!flags.keep) await rm(work, { recursive: true, force: true });
}

async function smokeCheck(exe) {
  const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  const version = quietly(exe, ['--version'], { env }).trim();
  if (version !== pkg.version) throw new Error(`the executable printed ${JSON.stringify(version)} for --version, not ${pkg.version}`);
  const help = spawnSync(exe, ['--help'], { cwd: work, env: { ...env, NODE_DEBUG: 'rfs-sea' }, encoding: 'utf8' });
  if (help.status !== 0 || !help.stdout.startsWith('Usage: rfs ')) {
    throw new Error(`the executable's --help failed (${help.status ?? help.signal}): ${help.stdout.slice(0, 200)}${help.stderr}`);
  }
  const expected = flags['no-code-cache'] ? 'absent' : 'accepted';
  if (!help.stderr.includes(`code cache ${expected}`)) throw new Error(`the code cache is not ${expected}: ${help.stderr.trim()}`);
  const completion = quietly(exe, ['completion', 'bash'], { env });
  if (!completion.includes('complete -F')) throw new Error('the executable printed no bash completion');
  // --jq's engine is an asset of its own: a program that does not compile proves it loads.
  const jqRun = spawnSync(exe, ['recordings', 'list', '--jq', 'foo('], {
    cwd: work,
    env: {
      ...env,
      RFS_API_KEY: 'service_pk_packageJQ_000000000000',
      RFS_BASE_URL: 'http://127.0.0.1:9',
      RFS_CONFIG_DIR: join(work, 'jq-config'),
    },
    encoding: 'utf8',
  });
  if (jqRun.status !== 2 || !jqRun.stderr.includes('--jq does not compile')) {
    throw new Error(`the executable's --jq engine did not load (${jqRun.status ?? jqRun.signal}): ${jqRun.stderr}`);
  }
}
