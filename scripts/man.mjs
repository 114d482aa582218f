// Writes man/rfs.1 from the command tree (src/completion/man.ts); run by `npm run completions`.
// The tree is TypeScript: scripts/ts-module.mjs bundles it for this script.
// test/commands/completion/man.test.ts fails when the file and the tree differ.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { withTsModule } from './ts-module.mjs';

const contents = `
  import { buildProgram } from './src/cli/program.ts';
  import { HELP_TOPICS } from './src/commands/topics.ts';
  import { buildCompletionTree } from './src/completion/tree.ts';
  import { manPage } from './src/completion/man.ts';
  const tree = buildCompletionTree(buildProgram(async () => undefined), { helpTopics: Object.keys(HELP_TOPICS) });
  export default (date) => manPage(tree, { version: RFS_VERSION, topics: HELP_TOPICS, date });
`;
await withTsModule(contents, async ({ default: page }) => {
  const target = new URL('../man/rfs.1', import.meta.url);
  // .TH's date says when the page's text last changed: kept while the rest is the same, so that
  // regenerating an unchanged page changes nothing (test/commands/completion/man.test.ts reads it back).
  const kept = await readFile(target, 'utf8').catch(() => '');
  const keptDate = /^\.TH RFS 1 (\d{4}-\d{2}-\d{2}) /m.exec(kept)?.[1];
  const today = new Date().toISOString().slice(0, 10);
  const text = keptDate !== undefined && page(keptDate) === kept ? kept : page(today);
  await mkdir(new URL('../man/', import.meta.url), { recursive: true });
  await writeFile(target, text);
});
