// Bundles the CLI (and the sandbox it ships) into dist/ as ESM with code splitting, so that
// `rfs --version` loads one small chunk and each command's code is imported only when it runs.
import { build } from 'esbuild';
import { readdir, rm } from 'node:fs/promises';
import { buildDefines } from './build-stamp.mjs';

// A previous build goes, but not the single executable beside it (dist/rfs-linux-x64): `npm
// pack` runs this build (prepack) and must not delete it before it is made again below.
const dist = new URL('../dist/', import.meta.url);
for (const entry of await readdir(dist).catch(() => [])) {
  if (!entry.startsWith('rfs-')) await rm(new URL(entry, dist), { recursive: true, force: true });
}
const modules = await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Maps beside the chunks, read only when --verbose asks for a stack trace (bin/rfs.js and
  // src/main.ts turn them on then): a trace points into src/, not the minified bundle. Without
  // the sources themselves: file and line are what a bug report needs.
  sourcemap: true,
  sourcesContent: false,
  // Minified code parses faster: start-up is mostly V8 compiling these chunks. Names are kept,
  // for readable --verbose stack traces and because error classes take their name from the
  // class (src/cli/errors.ts).
  minify: true,
  keepNames: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  define: buildDefines(),
  // Bundled CommonJS dependencies (commander) call require(); give ESM chunks a real one.
  banner: {
    js: "import { createRequire as __rfsCreateRequire } from 'node:module'; const require = __rfsCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// Which source modules each file of that build holds (dist/modules.json): the chunks a run
// loads say which modules it loaded. test/build/startup-path.test.ts keeps modules that one
// page of `recordings list` must not load off its path (ARCHITECTURE.md, "How rfs starts").
const { writeFile: writeJson } = await import('node:fs/promises');
const held = {};
for (const [file, output] of Object.entries(modules.metafile.outputs)) {
  if (file.endsWith('.js')) held[file.replace(/^dist\//, '')] = Object.keys(output.inputs).sort();
}
await writeJson(new URL('../dist/modules.json', import.meta.url), `${JSON.stringify(held, null, 1)}\n`);

// The overview (`rfs --help`), rendered once here at 80 columns as a non-terminal would see
// it, so that bin/rfs.js can print it without loading the bundle.
const { execFileSync } = await import('node:child_process');
const { writeFile } = await import('node:fs/promises');
const help = execFileSync(process.execPath, ['dist/main.js', '--help'], {
  encoding: 'utf8',
  env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' },
});
await writeFile(new URL('../dist/help.txt', import.meta.url), help);
await (await import('./inspector-page.mjs')).buildInspectorPage(); // the inspector's page, dist/inspector/ (--inspect only)

// The same CLI as one CommonJS function with V8's code cache of it, made by this Node. bin/rfs.js
// runs it on a Node with the same V8 (Node 20 has no compile cache for ES modules), and the ES
// module build above everywhere else: measured here, one page of `recordings list` starts
// about 50 ms sooner.
const { mkdir, mkdtemp, rm: remove } = await import('node:fs/promises');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { fileURLToPath } = await import('node:url');
const { bundleCommonJs, bundleLazyFile, LAZY_FILES, trainCodeCache, writeCommonJsFunction } = await import('./commonjs-bundle.mjs');
const work = await mkdtemp(join(tmpdir(), 'rfs-build-'));
try {
  const bundleDir = new URL('../dist/bundle/', import.meta.url);
  await mkdir(bundleDir, { recursive: true });
  const app = fileURLToPath(new URL('rfs.js', bundleDir));
  await writeCommonJsFunction(await bundleCommonJs('src/main.ts', join(work, 'app.cjs')), app);
  for (const lazy of LAZY_FILES) await bundleLazyFile(lazy, fileURLToPath(new URL(lazy.asset, bundleDir)));
  try {
    trainCodeCache(app, fileURLToPath(new URL(`v8-${process.versions.v8}-${process.arch}.cache`, bundleDir)), join(work, 'config'));
  } catch (error) {
    // Training serves a page from the bundle's own sandbox on 127.0.0.1. Where that cannot run,
    // the build still succeeds: without a cache, bin/rfs.js runs the ES module build.
    process.stderr.write(
      `build: no code cache for the CommonJS bundle (${error.message.split('\n')[0]}); rfs will run the ES module build\n`,
    );
  }
} finally {
  await remove(work, { recursive: true, force: true });
}

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
