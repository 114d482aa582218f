// Writes docs/reference.md from the command declarations (src/cli/reference.ts); run by
// `npm run completions`, as scripts/man.mjs writes man/rfs.1. The declarations are TypeScript,
// so a throw-away bundle of them runs here; test/docs/reference.test.ts fails when the file and
// the declarations differ.
import { build } from 'esbuild';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const work = await mkdtemp(join(tmpdir(), 'rfs-reference-'));
try {
  const out = join(work, 'reference.mjs');
  await build({
    stdin: { contents: "export { referencePage } from './src/cli/reference.ts';", resolveDir: process.cwd(), loader: 'ts' },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    define: { RFS_VERSION: JSON.stringify(pkg.version) },
    banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
    logLevel: 'warning',
  });
  const { referencePage } = await import(pathToFileURL(out).href);
  await writeFile(new URL('../docs/reference.md', import.meta.url), await referencePage());
} finally {
  await rm(work, { recursive: true, force: true });
}
