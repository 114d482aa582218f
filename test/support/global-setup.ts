// Once before the suite: what the tests need that a fresh clone lacks, made the way `npm test`
// makes it, so that `npx vitest run` passes on its own. The OpenAPI client types
// (scripts/openapi-types.mjs, gitignored) are written when they differ from openapi.json's; dist/
// is built again only when what it was built from changed (scripts/build-stamp.mjs), so a run on
// a fresh build costs nothing here. Generating the types loads openapi-typescript (about 2.5
// CPU-seconds); a stamp beside them (what they were made from, and their own hash) skips that
// when nothing changed. test/contract/typed-client.test.ts still generates them fresh to compare.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function read(path: string | URL): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What the types file is made from, and the file itself: when it is unchanged, so are the types. */
function typesStamp(typesFile: string): string {
  const hash = createHash('sha256');
  for (const file of ['openapi.json', 'scripts/openapi-types.mjs', 'node_modules/openapi-typescript/package.json']) {
    hash.update(`${file}\0${read(join(ROOT, file)) ?? ''}\0`);
  }
  hash.update(read(typesFile) ?? '\0missing');
  return hash.digest('hex');
}

export default async function setup(): Promise<void> {
  const TYPES_FILE = join(ROOT, 'test/contract/generated/openapi-types.ts');
  const STAMP_FILE = `${TYPES_FILE}.stamp`;
  if (read(STAMP_FILE) !== typesStamp(TYPES_FILE)) {
    const { openapiTypes, TYPES_FILE: written } = await import('../../scripts/openapi-types.mjs');
    if (written !== TYPES_FILE) throw new Error(`the types file moved to ${written}: change the global set-up too`);
    const types = await openapiTypes();
    if (read(TYPES_FILE) !== types) {
      mkdirSync(dirname(TYPES_FILE), { recursive: true });
      writeFileSync(TYPES_FILE, types);
    }
    writeFileSync(STAMP_FILE, typesStamp(TYPES_FILE));
  }
  const { FINGERPRINT_FILE, sourceFingerprint } = await import('../../scripts/build-stamp.mjs');
  if (read(FINGERPRINT_FILE)?.trim() !== sourceFingerprint()) {
    process.stderr.write('global set-up: dist/ is missing or older than the source; building it (node scripts/build.mjs)\n');
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
}
