// The client types of openapi.json (openapi-typescript's API), as an integrator generates them:
// written to test/contract/generated/openapi-types.ts (gitignored), which
// test/contract/typed-client.test.ts imports and `tsc --noEmit` compiles. Generated before every
// lint and type check (package.json: prelint, typecheck), so the file is never committed and
// never stale; the test checks again that it is what openapi.json gives now.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const OPENAPI = new URL('../openapi.json', import.meta.url);
export const TYPES_FILE = fileURLToPath(new URL('../test/contract/generated/openapi-types.ts', import.meta.url));

/** The text of the types file for openapi.json as it is now. */
export async function openapiTypes() {
  return COMMENT_HEADER + astToString(await openapiTS(OPENAPI));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(TYPES_FILE), { recursive: true });
  writeFileSync(TYPES_FILE, await openapiTypes());
}
