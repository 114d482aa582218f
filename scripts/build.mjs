// Bundles the CLI (and the sandbox it ships) into dist/ as ESM with code splitting, so that
// `rfs --version` loads one small chunk and each command's code is imported only when it runs.
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { lazyHttp2 } from './lazy-http2.mjs';

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
  plugins: [lazyHttp2],
  logLevel: 'warning',
});

// The overview (`rfs --help`), rendered once here at 80 columns as a non-terminal would see
// it, so that bin/rfs.js can print it without loading the bundle.
const { execFileSync } = await import('node:child_process');
const { writeFile } = await import('node:fs/promises');
const help = execFileSync(process.execPath, ['dist/main.js', '--help'], { encoding: 'utf8', env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' } });
await writeFile(new URL('../dist/help.txt', import.meta.url), help);
