// Builds dist/: the CLI as one CommonJS file (dist/bundle/), which bin/rfs.js runs on every
// Node, the overview pre-rendered for bin/rfs.js, the sandbox's library entry point with its
// types, and the single executable.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleLazyFile, bundleSplit, LAZY_FILES, SECOND_SCRIPT, writeBundle } from './commonjs-bundle.mjs';

// A previous build goes, but not the single executable beside it (dist/rfs-linux-x64): `npm
// pack` runs this build (prepack) and must not delete it before it is made again below.
const dist = new URL('../dist/', import.meta.url);
for (const entry of await readdir(dist).catch(() => [])) {
  if (!entry.startsWith('rfs-')) await rm(new URL(entry, dist), { recursive: true, force: true });
}

// The CLI as CommonJS, minified (start-up is mostly V8 compiling it), in two scripts (what one
// page runs, and the rest: bundleSplit), each with its source map beside it for --verbose's
// stack traces; modules loaded from a file of their own (LAZY_FILES) beside them. One build for every Node and every run: bin/rfs.js compiles it with a
// code cache that each user's first run makes for the Node it runs on (ARCHITECTURE.md, "How
// rfs starts"). Node's own compile cache, the ES module build split into chunks and a cache
// trained here for the building Node alone were measured against it (bench/README.md).
// The checks of the API's answers are generated from the zod schemas and committed
// (scripts/checks.mjs): a bundle with stale ones would check answers by yesterday's shapes.
const stale = await (await import('./checks.mjs')).staleChecks();
if (stale.length > 0) {
  throw new Error(`stale generated checks (${stale.map((s) => s.target.output).join(', ')}): run \`node scripts/checks.mjs\``);
}

const work = await mkdtemp(join(tmpdir(), 'rfs-build-'));
try {
  const bundleDir = new URL('../dist/bundle/', import.meta.url);
  await mkdir(bundleDir, { recursive: true });
  // Two scripts: what one page runs, and the rest, compiled when a command first needs it.
  const plain = join(work, 'app.cjs');
  const { first, second } = await bundleSplit('src/main.ts', plain, { sourcemap: true });
  await writeBundle(first, fileURLToPath(new URL('rfs.cjs', bundleDir)), { map: `${plain}.map` });
  const plainSecond = join(work, SECOND_SCRIPT);
  await writeBundle(second, fileURLToPath(new URL(SECOND_SCRIPT, bundleDir)), { map: `${plainSecond}.map` });
  for (const lazy of LAZY_FILES) await bundleLazyFile(lazy, fileURLToPath(new URL(lazy.asset, bundleDir)));
  // The one escaping function for the terminal (src/core/sanitize.ts), for what bin/rfs.js says
  // under NODE_DEBUG before the bundle runs (paths from XDG_CACHE_HOME, error messages).
  await build({
    entryPoints: ['src/core/sanitize.ts'],
    outfile: fileURLToPath(new URL('sanitize.cjs', bundleDir)),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'warning',
  });
  // The overview (`rfs --help`), rendered once here at 80 columns as a non-terminal would see
  // it, so that bin/rfs.js can print it without loading the bundle.
  const help = execFileSync(process.execPath, [plain, '--help'], {
    cwd: work,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', COLUMNS: '80', NO_COLOR: '1' },
  });
  await writeFile(new URL('help.txt', dist), help);
} finally {
  await rm(work, { recursive: true, force: true });
}
await (await import('./inspector-page.mjs')).buildInspectorPage(); // the inspector's page, dist/inspector/ (--inspect only)

// The library entry point `rfs/sandbox` (package.json exports): the sandbox alone, in one file
// of its own, so that an integrator's test suite that imports it loads nothing of the CLI; and
// its type declarations.
await build({
  entryPoints: { 'sandbox/index': 'src/sandbox/index.ts' },
  outdir: 'dist',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Readable: it runs inside other people's test suites, where stack traces are read.
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
execFileSync(process.execPath, [fileURLToPath(import.meta.resolve('typescript/bin/tsc')), '-p', 'tsconfig.sandbox-types.json'], {
  stdio: 'inherit',
});

// The single executable (dist/rfs-linux-x64), built here once per build rather than by the test
// that runs it; where this Node or platform cannot build one, the build says so and succeeds.
const { packageExecutable } = await import('./package.mjs');
await packageExecutable({ ifSupported: true });

// What this build was made from, for the test suite's global set-up (test/support/global-setup.ts).
const { FINGERPRINT_FILE, sourceFingerprint } = await import('./build-stamp.mjs');
await writeFile(FINGERPRINT_FILE, `${sourceFingerprint()}\n`);
