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
//   3. The SEA configuration: the tiny main script src/sea/entry.ts (which answers `--version` at
//      once and otherwise compiles the bundle with that cache) and, as assets, the bundle and
//      its cache.
//   4. With a Node that has `--build-sea` (25.5 and later: the release's Node), that one command
//      writes the executable: a copy of the target's Node binary with the blob injected (an ELF
//      note, a Mach-O segment or a PE resource NODE_SEA_BLOB) and the SEA fuse flipped. With an
//      older Node (a clone's `npm run build` on Node 20, 22 or 24) `--experimental-sea-config`
//      makes the preparation blob and postject (the injector the Node project publishes)
//      injects it: postject stays for those Nodes only.
//
// Usage: node scripts/package.mjs [--out <file>] [--no-code-cache] [--no-minify] [--keep] [--if-supported]
//                                 [--target <platform> --target-node <file>]
//   --no-code-cache and --no-minify exist to measure their effect on start-up; --keep leaves the
//   bundles, the config and the blob in the work folder and prints where it is.
//   --target and --target-node make the executable of another platform (scripts/release.mjs):
//   see "Other platforms" below.
// scripts/build.mjs calls packageExecutable() after the dist/ build (with ifSupported), so the
// executable is built once per build, not by the test that runs it.
//
// For other callers (a release for other platforms), the steps are exported on their own:
//   prepareSea({ work, codeCache, minify }) → { seaConfig, app, assets }: steps 1–3, with this Node;
//   buildSea(seaConfig, nodeBinary, exe): step 4 with `node --build-sea` (hasBuildSea());
//   prepareBlob(…) → { blob, app, assets } and injectBlob(blob, nodeBinary, exe): step 4 with
//     postject, into a copy of any Node binary of the same version (V8 takes the code cache
//     only from the same version and flags);
//   checkExecutable(exe, { codeCache }): the smoke checks, for a binary this machine can run.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  bundleCommonJs,
  bundleLazyFile,
  bundleSplit,
  LAZY_FILES,
  SECOND_SCRIPT,
  trainCodeCache,
  writeCommonJsFunction,
} from './commonjs-bundle.mjs';

// The fuse string is fixed by the Node project (doc/api/single-executable-applications.md,
// and POSTJECT_SENTINEL_FUSE in src/node_sea.cc); it is checked against the binary below.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// Asset names, as src/sea/entry.ts reads them.
const APP_ASSET = 'rfs-app.js';
const CACHE_ASSET = 'rfs-app.cache';
/** The code cache of the bundle's second script (SECOND_SCRIPT is the script's asset). */
const SECOND_CACHE_ASSET = 'rfs-more.cache';
/** The overview at 80 columns, as dist/help.txt for bin/rfs.js. */
const HELP_ASSET = 'help.txt';
/** What the build knows of the executable that it cannot know itself (src/sea/entry.ts). */
const SEA_NOTE_ASSET = 'rfs-sea.json';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** This machine, as the targets below name platforms. */
const HOST = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

// ---- Other platforms (scripts/release.mjs) ----
// The blob is made by the Node that runs this script, and Node requires the binary it is injected
// into to be of the same version (doc/api/single-executable-applications.md), so release.mjs
// runs this script with the linux-x64 Node of the release's version and hands it the target's
// Node binary of that version. The same page of the docs says that code cache and snapshot "can
// only be loaded on the same platform where they are compiled": for another platform neither
// Node's code cache of the main script nor the trained cache of the bundle goes in (entry.ts
// then compiles the bundle; slower start-up, nothing else), and the executable is not run here
// (scripts/release-check.mjs runs it under qemu-user, or checks its format).
// A macOS Node is signed; the injection would leave a broken signature, worse than none, so it
// is removed first (macho-unsign), and postject puts the blob in a segment of its own.
// Not darwin-arm64: macOS starts arm64 code only with a code signature, which nothing here can
// make (scripts/release.mjs, MACOS_ARM64).
export const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'win-x64'];

/** Why this Node cannot build the Linux executable here, or undefined when it can. */
export function unsupportedReason() {
  if (process.platform !== 'linux') return `it builds a Linux executable; this is ${process.platform}`;
  if (!process.config.variables.single_executable_application) {
    return `this Node (${process.execPath}) was built without single-executable support`;
  }
  return undefined;
}

/** Runs `file` quietly; its output is shown only when it fails. */
function quietly(file, args, options = {}) {
  try {
    return execFileSync(file, args, { stdio: 'pipe', encoding: 'utf8', ...options });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

/**
 * Steps 1–3 in `work`: the bundle, the jq engine, the code cache (trained with this Node) and the
 * configuration of the executable (without `output`). Returns it, the bundle's code and the
 * assets by name.
 */
export async function prepareSea({ work, codeCache = true, minify = true }) {
  // 1. The CLI as one CommonJS function (the wrapper Node itself puts around a CommonJS file).
  // Two scripts: what one page runs, and the rest (bundleSplit), each an asset with its cache.
  const { first: app, second } = await bundleSplit('src/main.ts', join(work, 'app.cjs'), { minify });
  const appAsset = join(work, APP_ASSET);
  await writeCommonJsFunction(app, appAsset);
  const secondAsset = join(work, 'assets', SECOND_SCRIPT);
  await mkdir(dirname(secondAsset), { recursive: true });
  await writeCommonJsFunction(second, secondAsset);
  const entry = join(work, 'entry.cjs');
  await bundleCommonJs('src/sea/entry.ts', entry);

  // 2. The code cache, taken after one run of the very text the executable compiles. V8 keeps
  // it only for the same V8 version, flags and source, which is why this Node is the one used.
  // Modules loaded lazily from a file of their own (LAZY_FILES) travel as assets of that name.
  const help = join(work, HELP_ASSET);
  await writeFile(
    help,
    quietly(process.execPath, [join(work, 'app.cjs'), '--help'], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', COLUMNS: '80', NO_COLOR: '1' },
    }),
  );
  const assets = { [APP_ASSET]: appAsset, [SECOND_SCRIPT]: secondAsset, [HELP_ASSET]: help };
  for (const lazy of LAZY_FILES) {
    const file = join(work, lazy.asset);
    await bundleLazyFile(lazy, file);
    assets[lazy.asset] = file;
  }
  // The inspector's page (--inspect), as the build made it into dist/inspector/: read from the
  // executable's assets (src/inspector/assets.ts), since no folder travels with one file.
  const page = fileURLToPath(new URL('../dist/inspector/', import.meta.url));
  for (const name of existsSync(page) ? readdirSync(page) : []) assets[`inspector/${name}`] = join(page, name);
  if (codeCache) {
    const cacheAsset = join(work, CACHE_ASSET);
    const secondCache = join(work, SECOND_CACHE_ASSET);
    trainCodeCache(appAsset, cacheAsset, join(work, 'train-config'), { second: secondAsset, secondCache });
    assets[CACHE_ASSET] = cacheAsset;
    assets[SECOND_CACHE_ASSET] = secondCache;
  }

  // Whether this Node applies execArgvExtension (below): an older one ignores the field, and its
  // executable reads NODE_OPTIONS. The executable is still made, for a build from a clone on such
  // a Node, and says so: at build time (packageExecutable) and at run time, on stderr, whenever
  // NODE_OPTIONS is set (src/sea/entry.ts reads this asset).
  const readsNodeOptions = ignoresExecArgvExtension(work);
  const seaNote = join(work, SEA_NOTE_ASSET);
  await writeFile(seaNote, `${JSON.stringify({ nodeOptions: readsNodeOptions ? 'read' : 'ignored', builtWith: process.version })}\n`);
  assets[SEA_NOTE_ASSET] = seaNote;

  // 3. The configuration of Node's single-executable support; the preparation blob is made from
  // it (--experimental-sea-config) for injectBlob, or `node --build-sea` makes the executable.
  const seaConfig = {
    main: entry,
    // Node 20 prints "ExperimentalWarning: Single executable application is an experimental
    // feature" on every start unless this is set.
    disableExperimentalSEAWarning: true,
    // The entry is tiny; its cache costs nothing and saves a compile.
    useCodeCache: codeCache,
    // Measured, not kept (bench/README.md, "How rfs starts"): a snapshot of the loaded bundle.
    useSnapshot: false,
    // NODE_OPTIONS is not read (`--require` ran a planted file): the executable
    // is a command, not a Node, and takes no Node flags from its environment. Node reads this
    // field from 24.x/25.x on (doc/api/single-executable-applications.md, "Execution argument
    // extension"); the release's Node (scripts/release.mjs) has it, an older build Node ignores it.
    execArgvExtension: 'none',
    assets,
  };
  return { seaConfig, app, assets, readsNodeOptions };
}

/** Steps 1–3 and the preparation blob, for injectBlob (a Node without --build-sea). */
export async function prepareBlob({ work, codeCache = true, minify = true }) {
  const { seaConfig, app, assets, readsNodeOptions } = await prepareSea({ work, codeCache, minify });
  const blob = join(work, 'rfs.blob');
  const config = join(work, 'sea-config.json');
  await writeFile(config, `${JSON.stringify({ ...seaConfig, output: blob }, null, 2)}\n`);
  // It says "Wrote single executable preparation blob to …" on success.
  quietly(process.execPath, ['--experimental-sea-config', config], { cwd: work });
  return { blob, app, assets, readsNodeOptions };
}

/**
 * Whether this Node ignores the SEA config's execArgvExtension: two blobs of one tiny main
 * script, one with "none" and one with "env", are the same bytes when the field is not read.
 */
export function ignoresExecArgvExtension(work) {
  const probe = join(work, 'exec-argv-probe');
  require('node:fs').mkdirSync(probe, { recursive: true });
  const main = join(probe, 'main.js');
  require('node:fs').writeFileSync(main, '0;\n');
  const blobs = ['none', 'env'].map((extension) => {
    const config = join(probe, `${extension}.json`);
    const output = join(probe, `${extension}.blob`);
    require('node:fs').writeFileSync(
      config,
      JSON.stringify({ main, output, disableExperimentalSEAWarning: true, execArgvExtension: extension }),
    );
    quietly(process.execPath, ['--experimental-sea-config', config], { cwd: probe });
    return require('node:fs').readFileSync(output);
  });
  return blobs[0].equals(blobs[1]);
}

/**
 * Whether this Node makes a whole executable itself (`node --build-sea`, Node 25.5 and later):
 * the blob goes into a copy of the `executable` the config names, of any platform Node ships,
 * with Node's own injector (doc/api/single-executable-applications.md, "Generating single
 * executable applications with --build-sea"), so postject is needed only by older Nodes.
 */
let buildSeaKnown;
export function hasBuildSea() {
  // Not in process.allowedNodeEnvironmentFlags (it is no NODE_OPTIONS flag): Node's own --help.
  buildSeaKnown ??= /^\s*--build-sea[=\s]/m.test(execFileSync(process.execPath, ['--help'], { encoding: 'utf8' }));
  return buildSeaKnown;
}

/** The target's Node binary checked as injectBlob checks it; a macOS one unsigned (Other platforms). */
async function targetBinary(nodeBinary, target, work) {
  let node = await readFile(nodeBinary);
  if (!node.includes(`${SEA_FUSE}:0`)) {
    throw new Error(`${nodeBinary} has no unflipped ${SEA_FUSE} fuse (already a SEA, or another Node build)`);
  }
  if (!node.includes(`${process.version}\0`)) throw new Error(`${nodeBinary} is not Node ${process.version}, which made the blob`);
  if (!target.startsWith('darwin-')) return { node, path: nodeBinary };
  const { unsign } = require('macho-unsign');
  const unsigned = unsign(node);
  if (unsigned !== null) node = Buffer.from(unsigned);
  const path = join(work, 'node-unsigned');
  await writeFile(path, node);
  return { node, path };
}

/** Steps 3–4 in one, with `node --build-sea`: `exe` from the target's `nodeBinary`. */
export async function buildSea(seaConfig, nodeBinary, exe, { target = HOST, work = dirname(exe) } = {}) {
  const { path } = await targetBinary(nodeBinary, target, work);
  const config = join(work, 'sea-build.json');
  await writeFile(config, `${JSON.stringify({ ...seaConfig, executable: path, output: exe }, null, 2)}\n`);
  // It says "Generated single executable <node> + <config> -> <exe>" on success.
  quietly(process.execPath, ['--build-sea', config], { cwd: work });
  await chmod(exe, 0o755);
}

/**
 * Step 4: a copy of `nodeBinary` (the target platform's Node of this Node's version) at `exe` with
 * `blob` injected and the fuse flipped; a macOS binary is unsigned first (Other platforms).
 */
export async function injectBlob(blob, nodeBinary, exe, { target = HOST } = {}) {
  const macos = target.startsWith('darwin-');
  const { node } = await targetBinary(nodeBinary, target, dirname(exe));
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
      ...(macos ? { machoSegmentName: 'NODE_SEA' } : {}),
    });
  } catch (error) {
    process.stderr.write(chatter.map((line) => `postject: ${line}\n`).join(''));
    throw error;
  } finally {
    Object.assign(console, { log, warn });
  }
}

/** Smoke checks of a built executable: the fast path, the bundle, the cache, a lazy file. */
export function checkExecutable(exe, { codeCache = true, work = dirname(exe) } = {}) {
  const pkg = JSON.parse(require('node:fs').readFileSync(join(root, 'package.json'), 'utf8'));
  const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  const version = quietly(exe, ['--version'], { env, cwd: work }).trim();
  if (version !== pkg.version) throw new Error(`the executable printed ${JSON.stringify(version)} for --version, not ${pkg.version}`);
  const help = spawnSync(exe, ['--help'], { cwd: work, env: { ...env, NODE_DEBUG: 'rfs-sea' }, encoding: 'utf8' });
  if (help.status !== 0 || !help.stdout.startsWith('Usage: rfs ')) {
    throw new Error(`the executable's --help failed (${help.status ?? help.signal}): ${help.stdout.slice(0, 200)}${help.stderr}`);
  }
  // The overview comes from an asset; a command's help from the bundle, with its cache.
  const commandHelp = spawnSync(exe, ['recordings', '--help'], { cwd: work, env: { ...env, NODE_DEBUG: 'rfs-sea' }, encoding: 'utf8' });
  const expected = codeCache ? 'accepted' : 'absent';
  if (commandHelp.status !== 0 || !commandHelp.stderr.includes(`code cache ${expected}`)) {
    throw new Error(`the code cache is not ${expected}: ${commandHelp.stderr.trim()}`);
  }
  // `completion` runs from the bundle's second script, with its own cache.
  const completion = spawnSync(exe, ['completion', 'bash'], { cwd: work, env: { ...env, NODE_DEBUG: 'rfs-sea' }, encoding: 'utf8' });
  if (completion.status !== 0 || !completion.stdout.includes('complete -F')) throw new Error('the executable printed no bash completion');
  if (!completion.stderr.includes(`code cache ${expected} (${SECOND_SCRIPT})`)) {
    throw new Error(`the second script's code cache is not ${expected}: ${completion.stderr.trim()}`);
  }
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

/**
 * Builds the executable of `target` (this machine's by default) at `out` (default
 * dist/rfs-linux-x64), from `targetNode`, the target's Node of this Node's version. With
 * ifSupported, a Node or platform that cannot build it only says so.
 */
export async function packageExecutable({
  out = join(root, 'dist', 'rfs-linux-x64'),
  codeCache: wantCodeCache = true,
  minify = true,
  keep = false,
  ifSupported = false,
  target = HOST,
  targetNode = process.execPath,
} = {}) {
  if (!TARGETS.includes(target)) throw new Error(`scripts/package.mjs: --target is one of ${TARGETS.join(', ')}, not ${target}`);
  const native = target === HOST;
  // A code cache is read only on the platform that made it (Other platforms).
  const codeCache = wantCodeCache && native;
  const unsupported = unsupportedReason();
  if (unsupported) {
    if (!ifSupported) throw new Error(`scripts/package.mjs: ${unsupported}`);
    process.stderr.write(`scripts/package.mjs: no single executable built (${unsupported})\n`);
    return;
  }
  const destination = resolve(out);
  const work = await mkdtemp(join(tmpdir(), 'rfs-package-'));
  const started = Date.now();
  try {
    const exe = join(work, target.startsWith('win-') ? 'rfs.exe' : 'rfs');
    let made;
    if (hasBuildSea()) {
      made = await prepareSea({ work, codeCache, minify });
      await buildSea(made.seaConfig, resolve(targetNode), exe, { target, work });
    } else {
      made = await prepareBlob({ work, codeCache, minify });
      await injectBlob(made.blob, resolve(targetNode), exe, { target });
    }
    const { app, assets, readsNodeOptions } = made;
    // Smoke checks before the file takes its place (another platform's: scripts/release-check.mjs).
    if (native) checkExecutable(exe, { codeCache, work });

    // Move into place atomically: nobody sees a half-written executable. dist/ may be rebuilt by
    // scripts/build.mjs at any time, so only this one file is touched there.
    await mkdir(dirname(destination), { recursive: true });
    const partial = `${destination}.partial-${process.pid}`;
    await copyFile(exe, partial);
    await chmod(partial, 0o755);
    await rename(partial, destination);

    const { size } = await stat(destination);
    const kib = (bytes) => `${Math.round(bytes / 1024)} KiB`;
    const cacheSize = assets[CACHE_ASSET] === undefined ? 'no code cache' : `code cache ${kib((await stat(assets[CACHE_ASSET])).size)}`;
    process.stderr.write(
      `${destination}: ${(size / 1024 / 1024).toFixed(1)} MiB (${target}, Node ${process.version}; bundle ${kib(app.length)}` +
        `${minify ? ', minified' : ', not minified'}; ${cacheSize}) in ${((Date.now() - started) / 1000).toFixed(1)} s, ${hasBuildSea() ? 'node --build-sea' : 'postject'}\n`,
    );
    if (readsNodeOptions) {
      process.stderr.write(
        `${destination}: reads NODE_OPTIONS, unlike a release's executable: Node ${process.version} ignores the setting ` +
          'execArgvExtension "none" (docs/install.md, "From a clone"); it says so on stderr whenever NODE_OPTIONS is set\n',
      );
    }
    if (keep) process.stderr.write(`work folder kept: ${work}\n`);
  } finally {
    if (!keep) await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: flags } = parseArgs({
    options: {
      out: { type: 'string' },
      'no-code-cache': { type: 'boolean', default: false },
      'no-minify': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      // On a machine that cannot build it, say so and succeed (its test is skipped there).
      'if-supported': { type: 'boolean', default: false },
      target: { type: 'string', default: HOST },
      'target-node': { type: 'string', default: process.execPath },
    },
  });
  await packageExecutable({
    ...(flags.out === undefined ? {} : { out: flags.out }),
    codeCache: !flags['no-code-cache'],
    minify: !flags['no-minify'],
    keep: flags.keep,
    ifSupported: flags['if-supported'],
    target: flags.target,
    targetNode: flags['target-node'],
  });
}
