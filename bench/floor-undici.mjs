// The same floor with undici through its published entry point (a devDependency, for this
// floor only): what that HTTP library alone costs a short-lived process. rfs used undici until
// issue 24; startup.mjs runs this both as it is and bundled by esbuild the way the CLI is built
// (bundleFloor there), which is the fair comparison.
import { Pool } from 'undici';

const pool = new Pool(process.env.RFS_BASE_URL);
const res = await pool.request({
  path: '/api/v1/recordings',
  method: 'GET',
  headers: { authorization: `Bearer ${process.env.RFS_API_KEY}` },
});
process.stdout.write(`${JSON.stringify(JSON.parse(await res.body.text()).data)}\n`);
await pool.close();
