// The floor of the one-page start-up benchmark: what any Node CLI must pay to fetch the same
// page and print its items. CommonJS, and node:http asked for with process.getBuiltinModule
// (Node 20.16+), as rfs asks for it: an ES module `import 'node:http'` would load Node's own
// undici on Node 22+ and make a slower, flattering floor. No validation, no retries, no CLI.
'use strict';

const http = process.getBuiltinModule('node:http');
const headers = { authorization: `Bearer ${process.env.RFS_API_KEY}` };
http.get(`${process.env.RFS_BASE_URL}/api/v1/recordings`, { headers }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => process.stdout.write(`${JSON.stringify(JSON.parse(text).data)}\n`));
});
