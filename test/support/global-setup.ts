// Once before the suite: what the tests need that a fresh clone lacks, made the way `npm test`
// makes it, so that `npx vitest run` passes on its own. The OpenAPI client types
// (scripts/openapi-types.mjs, gitignored) are written when they differ from openapi.json's; dist/
// is built again only when what it was built from changed (scripts/build-stamp.mjs), so a run on
// a fresh build costs nothing here.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function read(path: string | URL): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export default async function setup(): Promise<void> {
  const { openapiTypes, TYPES_FILE } = await import('../../scripts/openapi-types.mjs');
  const types = await openapiTypes();
  if (read(TYPES_FILE) !== types) {
    mkdirSync(dirname(TYPES_FILE), { recursive: true });
    writeFileSync(TYPES_FILE, types);
  }
  const { FINGERPRINT_FILE, sourceFingerprint } = await import('../../scripts/build-stamp.mjs');
  if (read(FINGERPRINT_FILE)?.trim() !== sourceFingerprint()) {
    process.stderr.write('global set-up: dist/ is missing or older than the source; building it (node scripts/build.mjs)\n');
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
}
