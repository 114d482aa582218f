// The CLI as one CommonJS function with a V8 code cache, shared by the two builds that use it:
// scripts/build.mjs (dist/bundle/, which bin/rfs.js runs on a Node whose V8 made the cache) and
// scripts/package.mjs (the single executable's assets).
//
// Start-up of a command that talks to the service is mostly V8 compiling code: the cache holds
// the compiled functions of one page of `recordings list` (served by the bundle's own sandbox)
// and of `--help`, so those, and everything that shares their code, skip compiling.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildDefines } from './build-stamp.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TRAINER = fileURLToPath(new URL('./train-code-cache.cjs', import.meta.url));
const require = createRequire(import.meta.url);

/** The runs that make the cache, one after the other in one process. */
export const TRAINING_RUNS = [['recordings', 'list', '-o', 'json'], ['--help']];

/**
 * One CommonJS file with every dependency inlined; refuses anything that would be looked for on
 * disk, so that it runs the same from dist/ and from inside the single executable. Without code
 * splitting, esbuild turns the lazy `import('./x.js')` calls into in-bundle initialisers, so
 * commands still load lazily.
 */
export async function bundleCommonJs(entry, outfile, { minify = true, sourcemap = false } = {}) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    bundle: true,
    splitting: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Minified, the bundle is half the size and compiles faster; keepNames because error
    // classes take their name from the class (src/core/errors.ts: `this.name = new.target.name`).
    // Unminified (to read a CPU profile) still loses its comments, which need not be ASCII.
    minifyIdentifiers: minify,
    minifySyntax: minify,
    minifyWhitespace: true,
    keepNames: true,
    // Everything else escaped: the loaders decode the file as latin1, the cheap exact decoding.
    charset: 'ascii',
    // `outfile.map` without a comment naming it: writeCommonJsFunction links it (a line down).
    sourcemap: sourcemap ? 'external' : false,
    sourcesContent: false,
    legalComments: 'none',
    define: buildDefines(),
    metafile: true,
    plugins: [lazyBeside],
    logLevel: 'warning',
  });
  // esbuild marks what it could not inline as external: only built-ins may be (a `node:`
  // specifier never reads the disk).
  const builtins = new Set(require('node:module').builtinModules);
  const outside = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path === '<runtime>') continue; // esbuild's own helpers, inlined
      if (!imported.path.startsWith('node:') && !builtins.has(imported.path)) outside.add(imported.path);
    }
  }
  if (outside.size > 0) throw new Error(`${entry}: the bundle would load from disk: ${[...outside].join(', ')}`);
  // A real import() fails inside a SEA. Comments (JSDoc types such as
  // `import('node:net').Socket`) are dropped before looking.
  const code = await readFile(outfile, 'utf8');
  const { code: bare } = await transform(code, { minifyWhitespace: true, legalComments: 'none', format: 'cjs', target: 'node20' });
  if (/\bimport\s*\(/.test(bare)) throw new Error(`${entry}: the bundle still contains a dynamic import()`);
  if (/[^\x00-\x7f]/.test(code)) throw new Error(`${entry}: the bundle is not ASCII`);
  return code;
}

/**
 * Modules that travel beside the bundle, in a file of their own, loaded only when a command asks
 * for them: dist/bundle/<asset> and, in the single executable, the asset of the same name
 * (scripts/package.mjs adds each). To add one: an entry here, and the stand-in in src/lazy/
 * that loads it (ARCHITECTURE.md, "How rfs starts").
 *   specifier: what the code imports; in the bundle it resolves to `stub` instead;
 *   stub: src/lazy/<name>.cjs, which reads `asset` from beside the bundle or from the executable;
 *   asset: the file's name; source: the file's code, bundled on its own (CommonJS, minified).
 */
export const LAZY_FILES = [
  // --jq's engine, 1.3 MB of JavaScript (jq's WebAssembly as base64): inside the bundle V8 would
  // read it at every start of every command (about 60 ms).
  {
    // What src/output/jq.ts imports to learn where the worker of --jq finds the engine.
    specifier: /^\.\/jq-engine-location\.js$/,
    stub: fileURLToPath(new URL('../src/lazy/jq-engine.cjs', import.meta.url)),
    asset: 'jq-engine.cjs',
    source: "module.exports = require('jq-wasm/inline');",
  },
  // rfs mcp's SDK (the Model Context Protocol's server, its schemas and a JSON Schema
  // validator), a quarter of a megabyte that only `rfs mcp` runs.
  {
    // What src/commands/mcp/run.ts imports (lazily) for the SDK.
    specifier: /^\.\/sdk\.js$/,
    stub: fileURLToPath(new URL('../src/lazy/mcp-sdk.cjs', import.meta.url)),
    asset: 'mcp-sdk.cjs',
    source: "module.exports = require('./src/commands/mcp/sdk.ts');",
  },
];

/** Each LAZY_FILES specifier resolved to its stand-in in src/lazy/. */
const lazyBeside = {
  name: 'rfs-lazy-beside',
  setup(build) {
    for (const lazy of LAZY_FILES) build.onResolve({ filter: lazy.specifier }, () => ({ path: lazy.stub }));
  },
};

/** One LAZY_FILES entry bundled on its own into `outfile` (CommonJS); returns its code. */
export async function bundleLazyFile(lazy, outfile) {
  await build({
    absWorkingDir: ROOT,
    stdin: { contents: lazy.source, resolveDir: ROOT, loader: 'js' },
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'warning',
  });
  return readFile(outfile, 'utf8');
}

/** Writes `code` as the function Node itself wraps a CommonJS file in, for vm.Script. */
export async function writeCommonJsFunction(code, file) {
  await writeFile(file, `(function (exports, require, module, __filename, __dirname) {${code}\n})`, 'latin1');
}

/**
 * Writes `code` as the CommonJS file dist/bundle/rfs.cjs, which bin/rfs.js compiles in Node's
 * function wrapper with its code cache, or, for --verbose, requires (Node's loader then reads its
 * source map). The first line names the text by its hash: bin/rfs.js keys the code cache on it,
 * since V8 checks only a cache's length against the source. `map`, esbuild's source map of
 * `code`, is written beside `file` as `<file>.map` (a line down, its sources relative to there)
 * and linked from the file's last line.
 */
export async function writeBundle(code, file, { map }) {
  const { createHash } = await import('node:crypto');
  const { basename, dirname, relative, resolve } = await import('node:path');
  const source = JSON.parse(await readFile(map, 'utf8'));
  source.sources = source.sources.map((s) => relative(dirname(file), resolve(dirname(map), s)));
  source.mappings = `;${source.mappings}`;
  source.file = basename(file);
  await writeFile(`${file}.map`, JSON.stringify(source));
  const text = `${code}\n//# sourceMappingURL=${basename(file)}.map\n`;
  const id = createHash('sha256').update(text).digest('hex').slice(0, 16);
  await writeFile(file, `// rfs bundle ${id}\n${text}`, 'latin1');
}

/**
 * Runs the function in `app` through TRAINING_RUNS under `node` (this Node unless told), and
 * writes V8's code cache of it to `cache`. V8 accepts a cache only from the same V8 version and
 * flags, for the same source: the single executable's cache must be trained by the very Node
 * binary the executable is made from. `configDir` is the config folder of the runs (left behind).
 */
export function trainCodeCache(app, cache, configDir, { node = process.execPath } = {}) {
  try {
    execFileSync(node, [TRAINER, app, cache, JSON.stringify(TRAINING_RUNS), configDir], {
      cwd: ROOT,
      stdio: 'pipe',
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}
