// Where the worker of --jq (./jq.ts) finds jq-wasm: here, jq-wasm's inline build in node_modules
// (tests, the ES module build). The CommonJS bundle and the single executable replace this
// module with src/lazy/jq-engine.cjs (scripts/commonjs-bundle.mjs), which names the engine file
// beside the bundle or hands over the executable's asset of it.
import { createRequire } from 'node:module';

export function jqEngineLocation(): Promise<{ path: string } | { source: string }> {
  return Promise.resolve({ path: createRequire(import.meta.url).resolve('jq-wasm/inline') });
}
