// npm run demo: the tour a new user should see, against a sandbox started on a free port with a
// fixed seed. Every rfs command is printed before its real output. Everything started here is
// stopped at the end, on Ctrl-C, and on error.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const rfsBin = join(root, 'bin', 'rfs.js');
const colour = process.stdout.isTTY && process.env.NO_COLOR === undefined;
const bold = (s) => (colour ? `\x1b[1m${s}\x1b[22m` : s);
const dim = (s) => (colour ? `\x1b[2m${s}\x1b[22m` : s);

const cleanups = [];
let stopping = false;
async function cleanup() {
  if (stopping) return;
  stopping = true;
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
}
// `npm run demo | head` closes stdout: stop cleanly instead of dying on the write error.
process.stdout.on('error', () => {
  void cleanup().then(() => process.exit(0));
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void cleanup().then(() => process.exit(130));
  });
}

function say(text) {
  process.stdout.write(`\n${bold(text)}\n`);
}

/** Starts `rfs sandbox` and resolves with its JSON line once it listens. */
async function startSandbox() {
  const child = spawn(process.execPath, [rfsBin, 'sandbox', '--port', '0', '--seed', '2026', '--delivery-attempts', '2', '--delivery-backoff', '200'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
  // Whatever way this process ends (a crash, a closed pipe), the sandbox does not outlive it.
  process.once('exit', () => child.kill('SIGTERM'));
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox stopped (exit ${code}): ${stderr.trim()}`)));
  });
  return JSON.parse(line);
}

/** A tiny webhook receiver: /ok records what it got; /flaky answers 500 until told to heal. */
async function startReceiver() {
  const received = [];
  let healed = false;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url === '/flaky' && !healed) {
        res.writeHead(500).end('not today');
        return;
      }
      received.push({ url: req.url, headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    heal: () => (healed = true),
  };
}

let env;
/** Runs rfs, echoing the command line first; resolves with its stdout. */
function rfs(args, o = {}) {
  const shown = ['rfs', ...args.map((a) => (/[\s'"]/.test(a) ? `'${a}'` : a))].join(' ');
  process.stdout.write(`${dim('$')} ${shown}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [rfsBin, ...args], { env: { ...process.env, ...env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!o.capture) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => process.stdout.write(dim(String(chunk))));
    child.stdin.end(o.stdin ?? '');
    child.once('exit', (code) => (code === (o.expect ?? 0) ? resolve(out) : reject(new Error(`${shown} exited ${code}`))));
  });
}

async function post(base, path, body) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

async function waitFor(what, check, ms = 10_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main() {
  const configDir = await mkdtemp(join(tmpdir(), 'rfs-demo-'));
  cleanups.push(() => rm(configDir, { recursive: true, force: true }));
  const sandbox = await startSandbox();
  const receiver = await startReceiver();
  // The demo's own config folder and the sandbox's admin key: nothing of yours is touched.
  env = { RFS_CONFIG_DIR: configDir, RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin };
  if (!colour) env.NO_COLOR = '1';

  say(`The sandbox is listening on ${sandbox.baseUrl} (seed 2026).`);
  say('1. Completed recordings that are not filed yet:');
  await rfs(['recordings', 'list', '--limit', '5', '-o', 'table']);

  const [first] = JSON.parse(await rfs(['recordings', 'list', '--limit', '1', '-o', 'json', '--quiet'], { capture: true }));
  process.stdout.write(dim(`  (the first one is ${first.id})\n`));

  say('2. One recording, in full:');
  const detail = await rfs(['recordings', 'get', first.id, '-o', 'table'], { capture: true });
  process.stdout.write(detail.split('\n').slice(0, 30).join('\n') + `\n${dim('  … (cut short for the demo)')}\n`);

  say('3. File it in the external system ("crm", record CASE-1001):');
  await rfs(['file', first.id, '--provider', 'crm', '--external-id', 'CASE-1001', '--external-url', 'https://crm.example.com/cases/1001', '-o', 'table']);

  say('4. It is gone from the unsynced list:');
  const after = JSON.parse(await rfs(['recordings', 'list', '--all', '-o', 'json'], { capture: true }));
  process.stdout.write(`  ${after.some((r) => r.id === first.id) ? 'still listed (unexpected!)' : `${first.id} is no longer listed`}; ${after.length} unsynced remain\n`);

  say('5. A webhook subscription, pointed at a local receiver:');
  const created = JSON.parse(await rfs(['webhooks', 'create', '--url', `${receiver.url}/ok`, '-o', 'json'], { capture: true }));
  process.stdout.write(`  subscription ${created.id}; secret ${created.secret.slice(0, 10)}… (shown once, kept for the check below)\n`);

  say('6. A recording is completed in the service (sandbox control API), and the event arrives:');
  const fresh = await post(sandbox.baseUrl, '/_sandbox/recordings', { title: 'Demo: intake call with Jordan Lee' });
  await post(sandbox.baseUrl, `/_sandbox/recordings/${fresh.data.id}/status`, { status: 'COMPLETED' });
  const delivery = await waitFor('the delivery', () => receiver.received.find((r) => r.url === '/ok'));
  process.stdout.write(`  received ${delivery.headers['x-service-event']} ${delivery.headers['x-service-delivery']} for ${JSON.parse(delivery.body).data.id}\n`);
  await rfs(
    ['verify-signature', '-o', 'table', '--timestamp', String(delivery.headers['x-service-timestamp']), '--signature', String(delivery.headers['x-service-signature']), '--secret-env', 'DEMO_SECRET'],
    { env: { DEMO_SECRET: created.secret }, stdin: delivery.body },
  );

  say('7. A delivery that fails, and its replay:');
  await rfs(['webhooks', 'create', '--url', `${receiver.url}/flaky`, '-o', 'table'], { capture: true });
  const second = await post(sandbox.baseUrl, '/_sandbox/recordings', { title: 'Demo: follow-up call' });
  await post(sandbox.baseUrl, `/_sandbox/recordings/${second.data.id}/status`, { status: 'COMPLETED' });
  await waitFor('a FAILED delivery', async () => {
    const out = await new Promise((resolve) => {
      const child = spawn(process.execPath, [rfsBin, 'deliveries', 'list', '--status', 'FAILED', '-o', 'json'], { env: { ...process.env, ...env } });
      let text = '';
      child.stdout.on('data', (c) => (text += c));
      child.once('exit', () => resolve(text));
    });
    return JSON.parse(out || '[]').length > 0;
  });
  await rfs(['deliveries', 'list', '--status', 'FAILED', '-o', 'table']);
  receiver.heal();
  await rfs(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'table']);
  await waitFor('the replayed delivery', () => receiver.received.find((r) => r.url === '/flaky'));
  process.stdout.write('  the receiver got the replayed delivery, with the same delivery id\n');

  say('Done. Everything the demo started has been stopped.');
}

main()
  .catch((error) => {
    process.stderr.write(`demo failed: ${error.message}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup);
