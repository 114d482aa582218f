// Only the parts of undici that rfs uses: Pool and the request() API on dispatchers. The
// package's index also loads fetch, WebSocket, caches and mocks, and through them Node's own
// bundled copy of undici with a second HTTP parser: measured on one page of `recordings list`,
// about 40 ms of start-up on an idle machine (bench/README.md, "Kept"). The package has no
// exports map, so these paths are its files as published; test/api/undici-pool.test.ts fails if
// a new undici moves them or changes what its index sets up for the request API.
import type { Pool as UndiciPool } from 'undici';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';

// What undici's index does for every dispatcher (Object.assign(Dispatcher.prototype, api)),
// limited to the one method used.
const proto = Dispatcher.prototype as { request?: unknown };
proto.request ??= request;

export const LeanPool = Pool as unknown as typeof UndiciPool;
