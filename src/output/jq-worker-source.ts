// The code of the worker thread that owns jq (--jq, cli.md Output). It runs jq's own command
// line once — `jq -r -c --unbuffered <program>` with no file, so jq reads its stdin as it does
// in `rfs … -o ndjson | jq -r` — and replaces the three system calls through which jq's stdio
// reaches the outside:
// - reading stdin blocks on a SharedArrayBuffer (Atomics.wait) until the main thread hands over
//   the next bytes of the command's ndjson, or the end: `input`, `inputs`, `input_line_number`
//   and `halt` see one stream, as in jq;
// - stdout is sent to the main thread in chunks (64 KiB, or what 10 ms gathered, and all of it
//   before each read and at the end), and the worker waits while more than OUT_LIMIT bytes are
//   on their way (backpressure: memory does not grow with the output);
// - stderr is passed on, except a runtime error ("jq: error …"), which stops the run (rfs stops
//   where jq would go on with the next input).
// The heap is jq-wasm's (at most 256 MiB): a program that needs more ends with jq's "cannot
// allocate memory", reported as a jq error.
//
// It is source text, started with `eval: true`, so that the same worker runs from src/ (tests),
// the ES module build, the CommonJS bundle and the single executable, where no file of it exists
// (bundlers also add helpers to a function's text, so a function's toString() would not do).
// The engine is jq-wasm's inline build: a file to require, or its text (an executable's asset).
// Where it reaches into jq-wasm's internals is ./jq-wasm-internals.ts, with the version it fits.

import { JQ_WASM_HOOK } from './jq-wasm-internals.js';

/** What the worker is started with. */
export interface JqWorkerData {
  /** [0] input handed over (0 none, 1 some), [1] its length, [2] end of input, [3] output bytes in flight. */
  control: SharedArrayBuffer;
  program: string;
  /** jq-wasm to require (with its module compiled, for the plain build), or its inline build's text. */
  engine: { path: string; wasm?: WebAssembly.Module } | { source: string };
}

/** Messages from the worker. */
export type JqWorkerMessage =
  | { type: 'read' }
  | { type: 'out'; bytes: Uint8Array }
  | { type: 'stderr'; text: string }
  | { type: 'compile'; text: string }
  | { type: 'fail'; text: string }
  | { type: 'exit'; code: number };

/** Bytes of input the control buffer carries at a time. */
export const INPUT_CHUNK = 64 * 1024;
/** The control words in front of the input bytes. */
export const CONTROL_BYTES = 16;

export const JQ_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { control, program, engine } = workerData;
const ctrl = new Int32Array(control, 0, 4);
const shared = new Uint8Array(control, ${CONTROL_BYTES});
const OUT_LIMIT = 1 << 20;
const OUT_BATCH = 64 * 1024;
const OUT_DELAY_MS = 10;
let flushedAt = 0;
const STOP = Symbol('stop');

// Emscripten prints an abort on console.error: the main thread reports it instead.
console.error = () => {};

let memory;
let input = new Uint8Array(0);
let inputAt = 0;
let ended = false;
let reading = false;
// What jq printed and the main thread has not been sent yet.
let out = new Uint8Array(2 * OUT_BATCH);
let outLength = 0;
let errorText;
let compileText = '';
const decoder = new TextDecoder();
// Views of jq's memory, made again when it grows.
let heap;
let view;

function views() {
  if (heap === undefined || heap.buffer !== memory.buffer) {
    heap = new Uint8Array(memory.buffer);
    view = new DataView(memory.buffer);
  }
}

function flush() {
  flushedAt = performance.now();
  if (outLength === 0) return;
  const bytes = out.slice(0, outLength);
  outLength = 0;
  Atomics.add(ctrl, 3, bytes.length);
  parentPort.postMessage({ type: 'out', bytes }, [bytes.buffer]);
  for (let inFlight = Atomics.load(ctrl, 3); inFlight > OUT_LIMIT; inFlight = Atomics.load(ctrl, 3)) Atomics.wait(ctrl, 3, inFlight);
}

// A runtime error ends with jq's next step (reading, printing, exiting): its text is whole then.
function stopOnError() {
  if (errorText === undefined) return;
  flush();
  parentPort.postMessage({ type: 'fail', text: errorText });
  throw STOP;
}

function readStdin(iov, count, pnum) {
  stopOnError();
  reading = true;
  if (inputAt >= input.length && !ended) {
    flush();
    parentPort.postMessage({ type: 'read' });
    Atomics.wait(ctrl, 0, 0);
    const length = Atomics.load(ctrl, 1);
    input = shared.slice(0, length);
    inputAt = 0;
    if (length === 0 && Atomics.load(ctrl, 2) === 1) ended = true;
    Atomics.store(ctrl, 0, 0);
  }
  views();
  let total = 0;
  for (let i = 0; i < count; i++) {
    const ptr = view.getUint32(iov + i * 8, true);
    const len = view.getUint32(iov + i * 8 + 4, true);
    const n = Math.min(len, input.length - inputAt);
    heap.set(input.subarray(inputAt, inputAt + n), ptr);
    inputAt += n;
    total += n;
    if (n < len) break;
  }
  view.setUint32(pnum, total, true);
  return 0;
}

function writeStdout(iov, count, pnum) {
  stopOnError();
  views();
  let total = 0;
  for (let i = 0; i < count; i++) {
    const ptr = view.getUint32(iov + i * 8, true);
    const len = view.getUint32(iov + i * 8 + 4, true);
    if (outLength + len > out.length) {
      flush();
      if (len > out.length) out = new Uint8Array(2 * len);
    }
    out.set(heap.subarray(ptr, ptr + len), outLength);
    outLength += len;
    total += len;
  }
  view.setUint32(pnum, total, true);
  // In batches, yet never held long: the first output after a pause goes out at once.
  if (outLength >= OUT_BATCH || performance.now() - flushedAt >= OUT_DELAY_MS) flush();
  return 0;
}

function writeStderr(iov, count, pnum) {
  views();
  let text = '';
  let total = 0;
  for (let i = 0; i < count; i++) {
    const ptr = view.getUint32(iov + i * 8, true);
    const len = view.getUint32(iov + i * 8 + 4, true);
    text += decoder.decode(heap.subarray(ptr, ptr + len), { stream: true });
    total += len;
  }
  view.setUint32(pnum, total, true);
  if (!reading) compileText += text;
  else if (errorText !== undefined) errorText += text;
  else if (text.startsWith('jq: error')) errorText = text;
  else { flush(); parentPort.postMessage({ type: 'stderr', text }); }
  return 0;
}

${JQ_WASM_HOOK}
function loadEngine() {
  if ('path' in engine) return require(engine.path);
  const vm = require('node:vm');
  const wrapper = new vm.Script('(function (exports, require, module) {' + engine.source + '\n})', { filename: 'jq-engine.cjs' });
  const module = { exports: {} };
  wrapper.runInThisContext()(module.exports, require, module);
  return module.exports;
}

(async () => {
  const jq = await loadEngine().loadJq(engine.wasm ? { wasmModule: engine.wasm } : {});
  let code;
  try {
    code = runJqMain(jq, ['-r', '-c', '--unbuffered', program]);
  } catch (error) {
    if (error === STOP) return;
    if (errorText !== undefined) { flush(); parentPort.postMessage({ type: 'fail', text: errorText }); return; }
    flush();
    parentPort.postMessage({ type: 'fail', text: error instanceof WebAssembly.RuntimeError ? 'jq: error: cannot allocate memory' : 'jq: error: ' + String(error && error.message) });
    return;
  }
  if (!reading && code !== 0) { parentPort.postMessage({ type: 'compile', text: compileText }); return; }
  try { stopOnError(); } catch { return; }
  flush();
  parentPort.postMessage({ type: 'exit', code });
})().catch((error) => parentPort.postMessage({ type: 'fail', text: 'jq: error: ' + String(error && error.message) }));
`;
