// Only the parts of undici that rfs uses: Pool and the request() API on dispatchers. The
// package's index also loads fetch, WebSocket and caches, and through them Node's own bundled
// copy of undici with a second HTTP parser: measured here, about 20 MB of resident memory and
// tens of milliseconds of start-up for nothing rfs calls. The package has no exports map, so
// these paths are its files as published; the lockfile pins them and the tests exercise them.
import { setFlagsFromString } from 'node:v8';
import type { Pool as UndiciPool } from 'undici';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';

// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it once quickly (Liftoff)
// and then again, optimised, in the background (TurboFan): for a command that lives a few
// seconds the second compile buys nothing and costs a transient ~35 MB of resident memory
// (measured: 110 MB → 74 MB peak for one request). Wasm compilation reads this flag when it
// compiles, which happens after this module is loaded, at the first connection.
setFlagsFromString('--liftoff-only');

// What undici's index does for every dispatcher (Object.assign(Dispatcher.prototype, api)),
// limited to the one method used.
const proto = Dispatcher.prototype as { request?: unknown };
proto.request ??= request;

export const LeanPool = Pool as unknown as typeof UndiciPool;
