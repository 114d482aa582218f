// Writes docs/reference.md from the command declarations (src/cli/reference.ts); run by
// `npm run completions`, as scripts/man.mjs writes man/rfs.1. test/docs/reference.test.ts fails
// when the file and the declarations differ.
import { writeFile } from 'node:fs/promises';
import { withTsModule } from './ts-module.mjs';

await withTsModule("export { referencePage } from './src/cli/reference.ts';", async ({ referencePage }) => {
  await writeFile(new URL('../docs/reference.md', import.meta.url), await referencePage());
});
