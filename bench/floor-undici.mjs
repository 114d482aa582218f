// The same floor with undici, as rfs loads it (Pool and request() only, Liftoff-only wasm):
// what the chosen HTTP library alone costs a short-lived process.
import { setFlagsFromString } from 'node:v8';
import { createRequire } from 'node:module';

setFlagsFromString('--liftoff-only');
const require = createRequire(import.meta.url);
const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');
const Pool = require('undici/lib/dispatcher/pool.js');
Dispatcher.prototype.request ??= require('undici/lib/api/api-request.js');

const pool = new Pool(process.env.RFS_BASE_URL);
const res = await pool.request({ path: '/api/v1/recordings', method: 'GET', headers: { authorization: `Bearer ${process.env.RFS_API_KEY}` } });
process.stdout.write(`${JSON.stringify(JSON.parse(await res.body.text()).data)}\n`);
await pool.close();
