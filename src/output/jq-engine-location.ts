// Where the worker of --jq (./jq.ts) finds jq-wasm: here, in node_modules (tests, the ES module
// build). The CommonJS bundle and the single executable replace this
// module with src/lazy/jq-engine.cjs (scripts/commonjs-bundle.mjs), which names the engine file
// beside the bundle or hands over the executable's asset of it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

// Node's global; this project's TypeScript libraries declare only its types.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;

/** jq's WebAssembly, compiled once per process: tests run rfs many times in one. */
let compiled: Promise<WebAssembly.Module> | undefined;

export async function jqEngineLocation(): Promise<{ path: string; wasm?: WebAssembly.Module } | { source: string }> {
  const require = createRequire(import.meta.url);
  compiled ??= readFile(require.resolve('jq-wasm/jq.wasm')).then((bytes) => wasm.compile(bytes));
  // The plain build (130 KB of JavaScript) with the module compiled here; the inline one
  // carries the module as base64 for where no file of it exists.
  return { path: require.resolve('jq-wasm'), wasm: await compiled };
}
