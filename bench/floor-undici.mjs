// The same floor with undici, as rfs loads it (Pool and request() only, Liftoff-only wasm):
// what the chosen HTTP library alone costs a short-lived process. startup.mjs runs it both as
// it is (undici's files loaded one by one from node_modules) and bundled by esbuild the way
// the CLI is built (bundleFloor below), which is the fair comparison for rfs.
import { setFlagsFromString } from 'node:v8';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';

setFlagsFromString('--liftoff-only');
Dispatcher.prototype.request ??= request;

const pool = new Pool(process.env.RFS_BASE_URL);
const res = await pool.request({
  path: '/api/v1/recordings',
  method: 'GET',
  headers: { authorization: `Bearer ${process.env.RFS_API_KEY}` },
});
process.stdout.write(`${JSON.stringify(JSON.parse(await res.body.text()).data)}\n`);
await pool.close();
