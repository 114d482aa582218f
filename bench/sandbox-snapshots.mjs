// Snapshot restore of a 10,000-recording sandbox (issue 15: under 50 ms, median of 20), timed as
// a test suite sees it: POST /_sandbox/snapshots/:name/restore over HTTP, through the built
// library (npm run build first). Before each restore the state is changed, so every restore
// has something to undo. Usage: node bench/sandbox-snapshots.mjs [recordings] [rounds]
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../dist/sandbox/index.js';

const recordings = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 20);

const sandbox = await startSandbox({ port: 0, seed: 'bench-snapshots', recordings, rateLimit: 0 });
const { baseUrl, apiKeys, control } = sandbox;
const api = (path, body) =>
  fetch(`${baseUrl}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${apiKeys.admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => res.json());

try {
  // Some state beyond the generated one: filings, recordings made by hand, subscriptions.
  const ids = (await api('/recordings?limit=100')).data.map((r) => r.id);
  for (const [i, id] of ids.entries()) await api(`/recordings/${id}/filings`, { provider: 'bench', externalId: `S-${i}` });
  for (let i = 0; i < 50; i++) await control.createRecording({ title: `Made ${i}`, status: 'COMPLETED' });
  await control.saveSnapshot('start');

  const times = [];
  for (let round = 0; round < rounds + 3; round++) {
    await control.createRecording({ title: `Temporary ${round}` });
    const listed = (await api('/recordings?limit=1')).data[0];
    if (listed) await api(`/recordings/${listed.id}/filings`, { provider: 'bench', externalId: `T-${round}` });
    const started = performance.now();
    await control.restoreSnapshot('start');
    const ms = performance.now() - started;
    if (round >= 3) times.push(ms); // three warm-ups
  }
  times.sort((a, b) => a - b);
  const median = (times[Math.floor((times.length - 1) / 2)] + times[Math.ceil((times.length - 1) / 2)]) / 2;
  const state = await control.exportState();
  console.log(
    JSON.stringify({
      recordings,
      rounds,
      changedRecordings: state.changedRecordings.length,
      medianMs: Number(median.toFixed(2)),
      minMs: Number(times[0].toFixed(2)),
      maxMs: Number(times[times.length - 1].toFixed(2)),
    }),
  );
} finally {
  await sandbox.close();
}
