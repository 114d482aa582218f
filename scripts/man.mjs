// Writes man/rfs.1 from the command tree (src/completion/man.ts); run by `npm run completions`.
// The tree is TypeScript, so a throw-away bundle of it runs here; test/completion/man.test.ts
// fails when the file and the tree differ.
import { build } from 'esbuild';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const work = await mkdtemp(join(tmpdir(), 'rfs-man-'));
try {
  const out = join(work, 'man.mjs');
  await build({
    stdin: {
      contents: `
        import { buildProgram } from './src/cli/program.ts';
        import { HELP_TOPICS } from './src/commands/topics.ts';
        import { buildCompletionTree } from './src/completion/tree.ts';
        import { manPage } from './src/completion/man.ts';
        const tree = buildCompletionTree(buildProgram(async () => undefined), { helpTopics: Object.keys(HELP_TOPICS) });
        export default (date) => manPage(tree, { version: RFS_VERSION, topics: HELP_TOPICS, date });
      `,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    define: { RFS_VERSION: JSON.stringify(pkg.version) },
    banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
    logLevel: 'warning',
  });
  const { default: page } = await import(pathToFileURL(out).href);
  const target = new URL('../man/rfs.1', import.meta.url);
  // .TH's date says when the page's text last changed: kept while the rest is the same, so that
  // regenerating an unchanged page changes nothing (test/completion/man.test.ts reads it back).
  const kept = await readFile(target, 'utf8').catch(() => '');
  const keptDate = /^\.TH RFS 1 (\d{4}-\d{2}-\d{2}) /m.exec(kept)?.[1];
  const today = new Date().toISOString().slice(0, 10);
  const text = keptDate !== undefined && page(keptDate) === kept ? kept : page(today);
  await mkdir(new URL('../man/', import.meta.url), { recursive: true });
  await writeFile(target, text);
} finally {
  await rm(work, { recursive: true, force: true });
}
