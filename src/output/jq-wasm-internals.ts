// Everything --jq relies on inside jq-wasm that is not its public API, in one place, with the one
// version it was read from.
//
// Why: jq-wasm's public API (`jq.json`, `jq.raw`) takes the whole input as one string and gives
// back all of the output when jq has ended. rfs needs jq's own main loop over a stream (the
// command's ndjson as it arrives, output as jq produces it, memory flat on `--all`, `input` and
// `halt` as in a pipe), and jq-wasm offers no streaming stdin or stdout. So the worker
// (./jq-worker-source.ts) replaces the two system calls through which the Emscripten build's
// stdio reaches JavaScript, `fd_read` and `fd_write`, when the build instantiates its
// WebAssembly, and calls `raw` in a way that makes jq read its own stdin. Both depend on this
// build's minified names and argument handling, which any other release may change:
// package.json pins jq-wasm to exactly JQ_WASM_VERSION, and test/output/jq-wasm-pin.test.ts fails
// on any other installed version, so that an upgrade reads these again before it ships.

/** The jq-wasm release these internals were read from (package.json pins exactly this one). */
export const JQ_WASM_VERSION = '3.0.0-jq-1.8.2';

/**
 * Source text for the worker: the engine calls `WebAssembly.instantiate` once, with its imports.
 * In this build they are the object `a`, whose `h` is WASI's fd_read and `d` its fd_write (each
 * `(fd, iov, iovcnt, pnum)`); checked before they are replaced, so that another build fails
 * loudly rather than running jq without its stdio. Expects `readStdin`, `writeStdout`,
 * `writeStderr` and a `memory` variable in the worker's scope.
 */
export const JQ_WASM_HOOK = `
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (binary, imports) => {
  const env = imports.a;
  const fdRead = env && env.h;
  const fdWrite = env && env.d;
  if (typeof fdRead !== 'function' || fdRead.length !== 4 || typeof fdWrite !== 'function' || fdWrite.length !== 4) {
    throw new Error('jq-wasm is not the build rfs was made for (${JQ_WASM_VERSION}): its fd_read/fd_write imports moved');
  }
  env.h = (fd, iov, count, pnum) => (fd === 0 ? readStdin(iov, count, pnum) : fdRead(fd, iov, count, pnum));
  env.d = (fd, iov, count, pnum) => (fd === 1 ? writeStdout(iov, count, pnum) : fd === 2 ? writeStderr(iov, count, pnum) : fdWrite(fd, iov, count, pnum));
  const result = await instantiate(binary, imports);
  const instance = result instanceof WebAssembly.Instance ? result : result.instance;
  memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
  return result;
};

// jq's main with these arguments, reading its own stdin; its exit code. jq-wasm's raw(input,
// filter, flags) adds '-M' and a file name holding the input after the filter: with no input
// and '-L' as the filter, jq takes that name as a module directory and reads stdin instead,
// as a pipe would give it.
function runJqMain(jq, args) {
  return jq.raw(null, '-L', args).exitCode;
}
`;
