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

/** Stops a child at cleanup, and also whatever way this process ends (a crash, a closed pipe). */
function stopAtEnd(child) {
  process.once('exit', () => child.kill('SIGTERM'));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
}

/** Starts `rfs sandbox` and resolves with its JSON line once it listens. */
async function startSandbox() {
  const child = spawn(
    process.execPath,
    [rfsBin, 'sandbox', '--port', '0', '--seed', '2026', '--delivery-attempts', '2', '--delivery-backoff', '200'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  stopAtEnd(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox stopped (exit ${code}): ${stderr.trim()}`)));
  });
  return JSON.parse(line);
}

/** A free port on 127.0.0.1, for a listener whose URL must exist before it starts. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `rfs webhooks listen` on a port, its ndjson lines collected and echoed as they arrive. */
async function startListener(port, secret, label) {
  const child = spawn(process.execPath, [rfsBin, 'webhooks', 'listen', '--port', String(port), '-o', 'ndjson'], {
    env: { ...process.env, ...env, RFS_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stopAtEnd(child);
  const lines = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line));
    process.stdout.write(`  ${dim(`[${label}]`)} ${line}\n`);
  });
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.startsWith('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`rfs webhooks listen stopped (exit ${code})`)));
  });
  return lines;
}

let env;
/** Runs rfs, echoing the command line first; resolves with its stdout. */
function rfs(args, o = {}) {
  const shown = ['rfs', ...args.map((a) => (/[\s'"]/.test(a) ? `'${a}'` : a))].join(' ');
  if (!o.quiet) process.stdout.write(`${dim('$')} ${shown}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [rfsBin, ...args], {
      env: { ...process.env, ...env, ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!o.capture) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      if (!o.quiet) process.stdout.write(dim(String(chunk)));
      o.onStderr?.(String(chunk));
    });
    child.stdin.end(o.stdin ?? '');
    child.once('exit', (code) => (code === (o.expect ?? 0) ? resolve(out) : reject(new Error(`${shown} exited ${code}`))));
  });
}

async function post(base, path, body) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
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
  // The demo's own config folder and the sandbox's admin key: nothing of yours is touched.
  env = { RFS_CONFIG_DIR: configDir, RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin };
  if (!colour) env.NO_COLOR = '1';

  say(`The sandbox is listening on ${sandbox.baseUrl} (seed 2026).`);
  say('1. Completed recordings that are not filed yet:');
  await rfs(['recordings', 'list', '--limit', '5', '-o', 'table']);

  const [first] = JSON.parse(await rfs(['recordings', 'list', '--limit', '1', '-o', 'json', '--quiet'], { capture: true, quiet: true }));
  process.stdout.write(dim(`  (the first one is ${first.id})\n`));

  say('2. One recording, in full:');
  const detail = await rfs(['recordings', 'get', first.id, '-o', 'table'], { capture: true });
  process.stdout.write(`${detail.split('\n').slice(0, 30).join('\n')}\n${dim('  … (cut short for the demo)')}\n`);

  say('3. File it in the external system ("crm", record CASE-1001):');
  await rfs([
    'file',
    first.id,
    '--provider',
    'crm',
    '--external-id',
    'CASE-1001',
    '--external-url',
    'https://crm.example.com/cases/1001',
    '-o',
    'table',
  ]);

  say('4. It is gone from the unsynced list:');
  const after = JSON.parse(await rfs(['recordings', 'list', '--all', '-o', 'json'], { capture: true }));
  process.stdout.write(
    `  ${after.some((r) => r.id === first.id) ? 'still listed (unexpected!)' : `${first.id} is no longer listed`}; ${after.length} unsynced remain\n`,
  );

  say('5. A webhook subscription, pointed at `rfs webhooks listen` (started on it with the secret):');
  const port = await freePort();
  const created = JSON.parse(await rfs(['webhooks', 'create', '--url', `http://127.0.0.1:${port}/`, '-o', 'json'], { capture: true }));
  process.stdout.write(`  subscription ${created.id}; secret ${created.secret.slice(0, 10)}… (shown once)\n`);
  process.stdout.write(
    `${dim('$')} RFS_WEBHOOK_SECRET=whsec_… rfs webhooks listen --port ${port} -o ndjson   ${dim('(in the background)')}\n`,
  );
  const heard = await startListener(port, created.secret, 'listen');

  say('6. A recording is completed in the service (sandbox control API); the listener verifies the delivery:');
  const fresh = await post(sandbox.baseUrl, '/_sandbox/recordings', { title: 'Demo: intake call with Jordan Lee' });
  await post(sandbox.baseUrl, `/_sandbox/recordings/${fresh.data.id}/status`, { status: 'COMPLETED' });
  await waitFor('the verified delivery', () => heard.find((d) => d.recordingId === fresh.data.id && d.verdict === 'valid'));

  say('7. A delivery that fails (its receiver is down):');
  const downPort = await freePort();
  const second = JSON.parse(
    await rfs(['webhooks', 'create', '--url', `http://127.0.0.1:${downPort}/`, '-o', 'json', '--quiet'], { capture: true }),
  );
  const another = await post(sandbox.baseUrl, '/_sandbox/recordings', { title: 'Demo: follow-up call' });
  await post(sandbox.baseUrl, `/_sandbox/recordings/${another.data.id}/status`, { status: 'COMPLETED' });
  await waitFor('a FAILED delivery', async () => {
    const out = await rfs(['deliveries', 'list', '--status', 'FAILED', '-o', 'json'], { capture: true, quiet: true });
    return JSON.parse(out || '[]').length > 0;
  });
  await rfs(['deliveries', 'list', '--status', 'FAILED', '-o', 'table']);

  say('8. The incident at a glance: which subscription fails, with what, since when (exit 8 while any FAILED):');
  await rfs(['deliveries', 'summary', '-o', 'table'], { expect: 8 });

  say('9. The receiver is back: watch the deliveries change while the FAILED ones are replayed:');
  const late = await startListener(downPort, second.secret, 'listen 2');
  process.stdout.write(`  ${dim('(the second receiver is up now)')}\n`);
  let watching = false;
  // Off a terminal watch prints one ndjson line per change; its first poll is the baseline. A
  // budget of 60 requests a minute (the default is 12, to leave the workspace's 120 to sync)
  // polls every few seconds, so the demo sees the changes within its time.
  const watch = rfs(['deliveries', 'watch', '--budget', '60', '--max-time', '12', '-o', 'ndjson'], {
    onStderr: (text) => {
      if (/watching/i.test(text)) watching = true;
    },
  });
  await waitFor('deliveries watch to start', () => watching);
  await rfs(['deliveries', 'replay', '--all-failed', '--yes', '-o', 'table']);
  await waitFor('the replayed delivery', () => late.find((d) => d.recordingId === another.data.id && d.verdict === 'valid'));
  await watch;
  await rfs(['deliveries', 'summary', '-o', 'table']);

  say('Done. Everything the demo started has been stopped.');
}

try {
  await main();
} catch (error) {
  process.stderr.write(`demo failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
