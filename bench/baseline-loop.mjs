// The baseline for the streaming benchmark: the least a program can do to print every
// unsynced recording as NDJSON — fetch each page with undici, follow the cursor, write one
// line per item. No validation, no retries, no pacing.
import { request } from 'undici';

const base = `${process.env.RFS_BASE_URL}/api/v1/recordings`;
const headers = { authorization: `Bearer ${process.env.RFS_API_KEY}`, accept: 'application/json' };
let cursor = null;
for (;;) {
  const url = `${base}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await request(url, { headers });
  const page = await res.body.json();
  let out = '';
  for (const item of page.data) out += `${JSON.stringify(item)}\n`;
  if (!process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
  if (!page.meta.hasMore) break;
  cursor = page.meta.nextCursor;
}
