// The baseline for the streaming benchmark: the least a program can do to print every
// unsynced recording as NDJSON with the client rfs uses (node:http, one kept-alive connection)
// — fetch each page, follow the cursor, write one line per item. No validation, no retries,
// no pacing.
import http from 'node:http';

const base = `${process.env.RFS_BASE_URL}/api/v1/recordings`;
const headers = { authorization: `Bearer ${process.env.RFS_API_KEY}`, accept: 'application/json' };
const agent = new http.Agent({ keepAlive: true });

function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

let cursor = null;
for (;;) {
  const page = await get(`${base}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  let out = '';
  for (const item of page.data) out += `${JSON.stringify(item)}\n`;
  if (!process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
  if (!page.meta.hasMore) break;
  cursor = page.meta.nextCursor;
}
agent.destroy();
