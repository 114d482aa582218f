// A module of this repository's TypeScript, bundled into a throw-away folder and imported here:
// what scripts/man.mjs and scripts/reference.mjs generate is written from the command tree,
// which is TypeScript. `contents` is the module's source (imports relative to the repository).
import { build } from 'esbuild';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs `use` with the bundled module's exports; the folder is removed afterwards. */
export async function withTsModule(contents, use) {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  const work = await mkdtemp(join(tmpdir(), 'rfs-ts-module-'));
  try {
    const out = join(work, 'module.mjs');
    await build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
      outfile: out,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      define: { RFS_VERSION: JSON.stringify(pkg.version) },
      banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
      logLevel: 'warning',
    });
    return await use(await import(pathToFileURL(out).href));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
