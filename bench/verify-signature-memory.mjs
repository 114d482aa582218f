// Peak memory of `rfs verify-signature` over a 300 MB payload (issue 16, item 5): the payload
// streams into the HMAC, so the peak must stay flat whatever the size. Target: under 200 MB.
// The payload is generated into a temporary file and deleted after; peak RSS is GNU time's %M.
// Run: node scripts/build.mjs && node bench/verify-signature-memory.mjs [megabytes]
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RFS = fileURLToPath(new URL('../bin/rfs.js', import.meta.url));
const MB = Number(process.argv[2] ?? 300);
const SECRET = 'whsec_bench_secret';
const NOW = 1_700_000_000;
const TARGET_MB = 200;

/** Writes MB megabytes of JSON-ish bytes to `path` and returns their signature, in 1 MB steps. */
function writePayload(path) {
  const hmac = createHmac('sha256', SECRET).update(`${NOW}.`);
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < MB; i++) {
    block.fill(`{"n":${i},"pad":"${'x'.repeat(40)}"}\n`);
    writeSync(fd, block);
    hmac.update(block);
  }
  closeSync(fd);
  return `sha256=${hmac.digest('hex')}`;
}

/** Exit code and peak RSS (MB) of one command, with stdin from `stdinPath`. */
function peak(args, stdinPath) {
  const stdin = openSync(stdinPath, 'r');
  const r = spawnSync('/usr/bin/time', ['-f', '%M', ...args], {
    stdio: [stdin, 'pipe', 'pipe'],
    env: { ...process.env, RFS_WEBHOOK_SECRET: SECRET },
  });
  closeSync(stdin);
  const lines = r.stderr.toString('utf8').trim().split('\n');
  return { code: r.status, rssMB: Number(lines.at(-1)) / 1024, stdout: r.stdout.toString('utf8').trim() };
}

const dir = mkdtempSync(join(tmpdir(), 'rfs-bench-verify-'));
try {
  const payload = join(dir, 'payload.json');
  const signature = writePayload(payload);
  const verify = ['verify-signature', '--timestamp', String(NOW), '--signature', signature, '--now', String(NOW), '-o', 'json'];
  const runs = [
    ['node -e 0 (baseline)', peak([process.execPath, '-e', '0'], '/dev/null'), 0],
    [`--payload <file> (${MB} MB)`, peak([process.execPath, RFS, ...verify, '--payload', payload], '/dev/null'), 0],
    [`--payload - < file (${MB} MB)`, peak([process.execPath, RFS, ...verify], payload), 0],
  ];
  console.log(`| run | exit | peak RSS | target |`);
  console.log(`| --- | --- | --- | --- |`);
  let ok = true;
  for (const [name, r, expected] of runs) {
    const checked = name.startsWith('--payload');
    const met = r.code === expected && (!checked || r.rssMB < TARGET_MB);
    ok &&= met;
    const target = checked ? `< ${TARGET_MB} MB ${met ? 'met' : 'MISSED'}` : '';
    console.log(`| ${name} | ${r.code} | ${r.rssMB.toFixed(1)} MB | ${target} |`);
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
