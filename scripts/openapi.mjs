// npm run openapi: writes openapi.json at the package root, the document the sandbox serves at
// GET /api/v1/openapi.json, for integrators who generate clients without running the sandbox,
// and the client types generated from it (scripts/openapi-types.mjs), which
// test/contract/typed-client.test.ts compiles against and checks fresh.
// Taken from the built library (npm run build first), so the file is what the sandbox serves;
// test/sandbox/openapi.test.ts fails when the two drift apart.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/index.js';

const sandbox = await startSandbox({ port: 0, recordings: 0 });
try {
  const res = await fetch(`${sandbox.baseUrl}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
  writeFileSync(fileURLToPath(new URL('../openapi.json', import.meta.url)), await res.text());
} finally {
  await sandbox.close();
}

execFileSync(process.execPath, [fileURLToPath(new URL('./openapi-types.mjs', import.meta.url))], { stdio: 'inherit' });
