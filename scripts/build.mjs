// Bundles the CLI (and the sandbox it ships) into dist/ as ESM with code splitting, so that
// `rfs --version` loads one small chunk and each command's code is imported only when it runs.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

await rm(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  // Minified code parses faster: start-up is mostly V8 compiling these chunks. Names are kept,
  // for readable --verbose stack traces and because error classes take their name from the
  // class (src/cli/errors.ts).
  minify: true,
  keepNames: true,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { RFS_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies (cli-table3) call require(); give ESM chunks a real one.
  banner: {
    js: "import { createRequire as __rfsCreateRequire } from 'node:module'; const require = __rfsCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
