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
import { dirname, join, relative, sep } from 'node:path';
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
  return (await bundleWithInputs(entry, outfile, { minify, sourcemap })).code;
}

/**
 * bundleCommonJs, for the two scripts of the split (bundleSplit): `entry` a file or esbuild's
 * stdin, more plugins, the externals it may leave to the loader; returns the code and the source
 * modules it holds (relative to the repository).
 */
async function bundleWithInputs(entry, outfile, { minify = true, sourcemap = false, plugins = [], allowExternal = () => false } = {}) {
  const result = await build({
    absWorkingDir: ROOT,
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: entry }),
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
    plugins: [lazyBeside, ...plugins],
    logLevel: 'warning',
  });
  // esbuild marks what it could not inline as external: only built-ins may be (a `node:`
  // specifier never reads the disk).
  const builtins = new Set(require('node:module').builtinModules);
  const outside = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path === '<runtime>') continue; // esbuild's own helpers, inlined
      if (!imported.path.startsWith('node:') && !builtins.has(imported.path) && !allowExternal(imported.path)) outside.add(imported.path);
    }
  }
  const name = typeof entry === 'string' ? entry : outfile;
  if (outside.size > 0) throw new Error(`${name}: the bundle would load from disk: ${[...outside].join(', ')}`);
  // A real import() fails inside a SEA. Comments (JSDoc types such as
  // `import('node:net').Socket`) are dropped before looking.
  const code = await readFile(outfile, 'utf8');
  const { code: bare } = await transform(code, { minifyWhitespace: true, legalComments: 'none', format: 'cjs', target: 'node20' });
  if (/\bimport\s*\(/.test(bare)) throw new Error(`${name}: the bundle still contains a dynamic import()`);
  if (/[^\x00-\x7f]/.test(code)) throw new Error(`${name}: the bundle is not ASCII`);
  return { code, inputs: new Set(Object.keys(result.metafile.inputs)) };
}

/** The second script of the split bundle: beside rfs.cjs, and the single executable's asset of that name. */
export const SECOND_SCRIPT = 'rfs-more.cjs';

/**
 * The `import()`s that stay in the first script: what one page of `recordings list` or one
 * `recordings get` runs (the client, the config, the output: ARCHITECTURE.md, "How rfs starts"),
 * as repository paths of the modules imported. Every other `import()` of the CLI loads its module
 * from the second script, compiled when a command first imports one of them; a module that a
 * first-script module imports statically stays in the first script whatever this list says.
 * test/build/startup-path.test.ts checks that one page never compiles the second script.
 */
export const FIRST_SCRIPT_IMPORTS = new Set([
  'src/cli/run.ts',
  'src/core/io.ts',
  'src/core/redact.ts',
  'src/api/client.ts',
  'src/api/transport.ts',
  'src/config/connection.ts',
  'src/config/profile-settings.ts',
  'src/config/profiles.ts',
  'src/commands/recordings/list/run.ts',
  'src/commands/recordings/get/run.ts',
  'src/output/ui-impl.ts',
  'src/output/table.ts',
  'src/output/wrap.ts',
  'src/output/key-value.ts',
  // stderr's colours, on a terminal
  'node_modules/chalk/source/index.js',
]);

const SECOND_STUB = fileURLToPath(new URL('../src/lazy/second-script.cjs', import.meta.url));
/** Resolutions made by the split's own plugins, which those plugins let through. */
const INNER = Symbol('rfs-split-inner');

/** `args` resolved as esbuild would without the split's plugins: its repository path, or undefined. */
async function resolvedPath(build, args) {
  if (args.pluginData === INNER || args.kind === 'entry-point') return undefined;
  const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: INNER });
  if (r.errors.length > 0 || r.external || r.namespace !== 'file') return undefined;
  return relative(ROOT, r.path).split(sep).join('/');
}

/**
 * The CLI as two CommonJS files (`firstOut`, and SECOND_SCRIPT beside it), so that one page
 * compiles only what it runs (bench/RESULTS.md, "How rfs starts"). The first holds src/main.ts
 * and every module it reaches without crossing an `import()` that FIRST_SCRIPT_IMPORTS leaves
 * out; each of those imports becomes a call into src/lazy/second-script.cjs. The second holds
 * the modules behind those imports, and takes every module the first holds from the first (the
 * same instances: one set of error classes, one config read), through a table of them the first
 * exports to it. Returns both codes.
 */
export async function bundleSplit(entry, firstOut, { minify = true, sourcemap = false } = {}) {
  const secondOut = join(dirname(firstOut), SECOND_SCRIPT);
  const first = async (hot, shared) => {
    const later = new Set();
    const plugin = {
      name: 'rfs-first-script',
      setup(build) {
        build.onResolve({ filter: /.*/ }, async (args) => {
          if (args.kind !== 'dynamic-import') return undefined;
          const path = await resolvedPath(build, args);
          if (path === undefined || hot.has(path)) return undefined;
          later.add(path);
          return { path, namespace: 'rfs-second-script' };
        });
        // An ES module outside the file namespace re-exporting what the stub returns, so that the
        // importer's `default` is the module's default export (as in the second script, below).
        build.onLoad({ filter: /.*/, namespace: 'rfs-second-script' }, (args) => {
          const from = JSON.stringify(`rfs-second-exports:${args.path}`);
          return { contents: `export * from ${from};\nexport { default } from ${from};\n`, loader: 'js' };
        });
        build.onResolve({ filter: /^rfs-second-exports:/ }, (args) => ({
          path: args.path.slice('rfs-second-exports:'.length),
          namespace: 'rfs-second-exports',
        }));
        build.onLoad({ filter: /.*/, namespace: 'rfs-second-exports' }, (args) => ({
          contents: `module.exports = require(${JSON.stringify(SECOND_STUB)})(${JSON.stringify(args.path)});\n`,
          resolveDir: ROOT,
          loader: 'js',
        }));
        // What the second script takes from the first: each module as require() gives it.
        build.onResolve({ filter: /^rfs-first-modules$/ }, () => ({ path: 'modules', namespace: 'rfs-first-modules' }));
        build.onLoad({ filter: /.*/, namespace: 'rfs-first-modules' }, () => ({
          contents: `module.exports = {\n${[...shared].map((p) => `  ${JSON.stringify(p)}: () => require(${JSON.stringify(`./${p}`)}),\n`).join('')}};\n`,
          resolveDir: ROOT,
          loader: 'js',
        }));
      },
    };
    const made = await bundleWithInputs(entry, firstOut, { minify, sourcemap, plugins: [plugin] });
    return { ...made, later, files: new Set([...made.inputs].filter((p) => !/^[\w-]+:/.test(p))) };
  };
  // A module imported lazily in one place and statically in another is in the first script.
  const hot = new Set(FIRST_SCRIPT_IMPORTS);
  let pass = await first(hot, []);
  for (
    let both = [...pass.later].filter((p) => pass.files.has(p));
    both.length > 0;
    both = [...pass.later].filter((p) => pass.files.has(p))
  ) {
    for (const p of both) hot.add(p);
    pass = await first(hot, []);
  }
  const used = new Set();
  const secondPlugin = {
    name: 'rfs-second-script',
    setup(build) {
      build.onResolve({ filter: /^rfs-first-bridge$/ }, () => ({ path: 'bridge', namespace: 'rfs-first-bridge' }));
      build.onLoad({ filter: /.*/, namespace: 'rfs-first-bridge' }, () => ({
        contents: 'let first;\nmodule.exports = { set(modules) { first = modules; }, get(path) { return first(path); } };\n',
        loader: 'js',
      }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        const path = await resolvedPath(build, args);
        if (path === undefined || !pass.files.has(path)) return undefined;
        used.add(path);
        return { path, namespace: 'rfs-first-module' };
      });
      // An ES module outside the file namespace, so that esbuild reads the first script's module
      // as a module compiled from ESM (its `default` its default export), where an importer of
      // this package ("type": "module") would take a CommonJS module's whole exports as default.
      build.onLoad({ filter: /.*/, namespace: 'rfs-first-module' }, (args) => {
        const from = JSON.stringify(`rfs-first-exports:${args.path}`);
        return { contents: `export * from ${from};\nexport { default } from ${from};\n`, loader: 'js' };
      });
      build.onResolve({ filter: /^rfs-first-exports:/ }, (args) => ({
        path: args.path.slice('rfs-first-exports:'.length),
        namespace: 'rfs-first-exports',
      }));
      build.onLoad({ filter: /.*/, namespace: 'rfs-first-exports' }, (args) => ({
        contents: `module.exports = require('rfs-first-bridge').get(${JSON.stringify(args.path)});\n`,
        loader: 'js',
      }));
    },
  };
  const laterModules = [...pass.later].sort();
  const second = await bundleWithInputs(
    {
      contents:
        "const bridge = require('rfs-first-bridge');\n" +
        'module.exports = (first) => {\n  bridge.set(first);\n  return {\n' +
        laterModules.map((p) => `    ${JSON.stringify(p)}: () => require(${JSON.stringify(`./${p}`)}),\n`).join('') +
        '  };\n};\n',
      resolveDir: ROOT,
      sourcefile: 'rfs-second-script-entry.js',
      loader: 'js',
    },
    secondOut,
    { minify, sourcemap, plugins: [secondPlugin] },
  );
  const final = await first(hot, [...used].sort());
  const moved = [...final.files].filter((p) => !pass.files.has(p));
  if (moved.length > 0) throw new Error(`bundleSplit: the first script changed between passes: ${moved.join(', ')}`);
  return { first: final.code, second: second.code, firstModules: final.files, secondModules: second.inputs };
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
 * Runs the function in `app` through TRAINING_RUNS under `node` (this Node unless told), with the
 * second script's function `second` loaded when the runs ask for it, and writes V8's code cache
 * of each, to `cache` and `secondCache`. V8 accepts a cache only from the same V8 version and
 * flags, for the same source: the single executable's cache must be trained by the very Node
 * binary the executable is made from. `configDir` is the config folder of the runs (left behind).
 */
export function trainCodeCache(app, cache, configDir, { node = process.execPath, second, secondCache } = {}) {
  try {
    execFileSync(node, [TRAINER, app, cache, JSON.stringify(TRAINING_RUNS), configDir, second, secondCache], {
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
