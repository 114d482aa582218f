// A floor for the one-page start-up benchmark: fetch the same page with node:http and print
// its items as JSON. No validation, no retries, no CLI.
import http from 'node:http';

http.get(`${process.env.RFS_BASE_URL}/api/v1/recordings`, { headers: { authorization: `Bearer ${process.env.RFS_API_KEY}` } }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => process.stdout.write(`${JSON.stringify(JSON.parse(text).data)}\n`));
});
