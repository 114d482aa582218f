// a key, a secret or a header dump is read up to a few KB and refused beyond
// (exit 2, in a moment, the content never echoed), and the payload streams into the HMAC. Run
// as child processes of the built CLI, with endless inputs (/dev/zero, a FIFO that never ends).
import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../../helpers/child.js';
import { LINUX, needs } from '../../helpers/platform.js';

const SECRET = 'whsec_bounded';
const NOW = 1_700_000_000;

interface Exit {
  code: number | null;
  stderr: string;
  ms: number;
}

/** The built CLI with stdin from a file (such as /dev/zero); killed after 10 s, which fails the test. */
function rfs(args: string[], stdinPath = '/dev/null', env: NodeJS.ProcessEnv = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const fd = openSync(stdinPath, 'r');
    const started = Date.now();
    const child = spawn(process.execPath, [RFS_BIN, ...args], {
      env: { PATH: process.env.PATH, RFS_WEBHOOK_SECRET: SECRET, ...env },
      stdio: [fd, 'ignore', 'pipe'],
    });
    closeSync(fd);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - started });
    });
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-bounded-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sig = (timestamp: number, body: Buffer | string): string =>
  `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex')}`;

function refusedQuickly(r: Exit, what: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.ms).toBeLessThan(8_000);
  expect(r.stderr).toMatch(what);
  // The bytes themselves (NULs from /dev/zero) are never echoed.
  expect(r.stderr).not.toContain('\u0000');
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'bounded local reads'), () => {
  it('verify-signature --secret-file /dev/zero exits 2 at once', async () => {
    const r = await rfs(['verify-signature', '--secret-file', '/dev/zero', '--timestamp', String(NOW), '--signature', sig(NOW, '')]);
    refusedQuickly(r, /--secret-file holds more than 4096 bytes/);
  });

  it('auth login --with-key < /dev/zero exits 2 at once', async () => {
    const config = join(dir, 'config');
    const r = await rfs(['auth', 'login', '--with-key', '--base-url', 'http://127.0.0.1:9'], '/dev/zero', { RFS_CONFIG_DIR: config });
    refusedQuickly(r, /stdin holds more than 4096 bytes: too much for an API key/);
  });

  it('verify-signature --headers /dev/zero (and --headers - < /dev/zero) exits 2 at once', async () => {
    refusedQuickly(await rfs(['verify-signature', '--headers', '/dev/zero', '--payload', '/dev/null']), /--headers holds more than/);
    refusedQuickly(
      await rfs(['verify-signature', '--headers', '-', '--payload', '/dev/null'], '/dev/zero'),
      /header dump on stdin holds more/,
    );
  });

  it('a --secret-file FIFO that never ends exits 2 at once', async () => {
    const fifo = join(dir, 'secret.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // A writer that keeps writing until the reader goes away.
    const writer = createWriteStream(fifo);
    writer.on('error', () => undefined);
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = (): void => {
      while (!writer.destroyed && writer.write(chunk));
      if (!writer.destroyed) writer.once('drain', pump);
    };
    writer.once('open', pump);
    try {
      const r = await rfs(['verify-signature', '--secret-file', fifo, '--timestamp', String(NOW), '--signature', sig(NOW, '')]);
      refusedQuickly(r, /--secret-file holds more than 4096 bytes/);
      expect(r.stderr).not.toContain('aaaa');
    } finally {
      writer.destroy();
    }
  });

  it('a secret file of exactly the limit is still read; a key on stdin still reaches its checks', async () => {
    const secret = 's'.repeat(4096);
    const path = join(dir, 'long-secret.txt');
    writeFileSync(path, secret);
    const body = join(dir, 'tiny.json');
    writeFileSync(body, '{}');
    const signature = `sha256=${createHmac('sha256', secret).update(`${NOW}.`).update('{}').digest('hex')}`;
    const ok = await rfs([
      'verify-signature',
      '--secret-file',
      path,
      '--payload',
      body,
      '--timestamp',
      String(NOW),
      '--signature',
      signature,
      '--now',
      String(NOW),
    ]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });

    const notKey = join(dir, 'not-a-key.txt');
    writeFileSync(notKey, 'hello');
    const r = await rfs(['auth', 'login', '--with-key', '--base-url', 'http://127.0.0.1:9'], notKey, { RFS_CONFIG_DIR: join(dir, 'c2') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not an API key/);
  });

  it('a valid signature over a payload of exactly 1 MiB streamed from a file still verifies, and one changed byte does not', async () => {
    // 1 MiB (the most a delivery holds) in 64 KiB reads: many chunks through the HMAC, with a
    // multi-byte character across reads.
    const body = Buffer.concat([Buffer.from('{"notes":"'), Buffer.alloc(1024 * 1024 - 12, 'é'), Buffer.from('"}')]);
    expect(body.length).toBe(1024 * 1024);
    const path = join(dir, 'large.json');
    writeFileSync(path, body);
    const at = ['--timestamp', String(NOW), '--now', String(NOW), '--payload', path];
    expect(await rfs(['verify-signature', ...at, '--signature', sig(NOW, body)])).toMatchObject({ code: 0, stderr: '' });
    body.writeUInt8(body.readUInt8(body.length - 3) ^ 1, body.length - 3);
    expect((await rfs(['verify-signature', ...at, '--signature', sig(NOW, body)])).code).toBe(1);
  });

  it('verify-signature --payload /dev/zero (and --payload - < /dev/zero) exits 2 at the 1 MiB of a delivery', async () => {
    const at = ['--timestamp', String(NOW), '--now', String(NOW), '--signature', sig(NOW, '')];
    refusedQuickly(
      await rfs(['verify-signature', ...at, '--payload', '/dev/zero']),
      /^error: the --payload file holds more than 1048576 bytes: too much for a delivery payload$/m,
    );
    refusedQuickly(
      await rfs(['verify-signature', ...at, '--payload', '-'], '/dev/zero'),
      /^error: the payload on stdin holds more than 1048576 bytes: too much for a delivery payload$/m,
    );
  });

  it('a payload one byte over 1 MiB is refused as webhooks sign refuses it', async () => {
    const path = join(dir, 'over.json');
    writeFileSync(path, Buffer.alloc(1024 * 1024 + 1, 'a'));
    const at = ['--timestamp', String(NOW), '--now', String(NOW), '--signature', sig(NOW, '')];
    refusedQuickly(await rfs(['verify-signature', ...at, '--payload', path]), /--payload file holds more than 1048576 bytes/);
    refusedQuickly(await rfs(['webhooks', 'sign', '--payload', path]), /--payload file holds more than 1048576 bytes/);
  });

  it('file --from /dev/zero (and --from - < /dev/zero) exits 2 at the first line past 1 MiB, sending nothing', async () => {
    // A closed loopback port: the first line never ends, so nothing may be sent.
    const env = { RFS_API_KEY: 'service_pk_bounded_0123456789abcdef', RFS_BASE_URL: 'http://127.0.0.1:9', RFS_CONFIG_DIR: join(dir, 'c3') };
    refusedQuickly(
      await rfs(['file', '--from', '/dev/zero', '--provider', 'crm'], '/dev/null', env),
      /^error: line 1 of the file given to --from holds more than 1048576 bytes: too much for one filing$/m,
    );
    refusedQuickly(
      await rfs(['file', '--from', '-', '--provider', 'crm'], '/dev/zero', env),
      /^error: line 1 of stdin holds more than 1048576 bytes: too much for one filing$/m,
    );
  });
});
