// `rfs verify-signature` run in-process through runCli. Every vector is computed here with
// node:crypto, independently of src/shared/signature.ts, so a bug there cannot hide itself.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';

const SECRET = 'whsec_test_secret';
const NOW = 1_700_000_000;
const BODY = '{"id":"evt_1","type":"filing.created"}';

function hmacHex(secret: string, timestamp: string | number, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex');
}
const sig = (timestamp: string | number, body: string | Buffer = BODY, secret = SECRET): string =>
  `sha256=${hmacHex(secret, timestamp, body)}`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-verify-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function verify(argv: string[], o: { env?: NodeJS.ProcessEnv; stdin?: string | Buffer; now?: number } = {}): Promise<Run> {
  const t = bufferIO({ env: o.env ?? { RFS_WEBHOOK_SECRET: SECRET } });
  // Bytes exactly as given, not through a string: the payload must reach the check untouched.
  const stdin = Readable.from([Buffer.isBuffer(o.stdin) ? o.stdin : Buffer.from(o.stdin ?? BODY, 'utf8')]);
  const code = await runCli(['verify-signature', ...argv], { ...t.io, stdin }, { clock: fakeTime((o.now ?? NOW) * 1000).clock });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

const table = ['-o', 'table'];
const at = (timestamp: string | number, signature: string): string[] => ['--timestamp', String(timestamp), '--signature', signature];

describe('verify-signature: the signature', () => {
  it('accepts the check vector of the spec and prints valid', async () => {
    const r = await verify(
      [...at(1700000000, 'sha256=57b147fd6da72d808ece3014a78236a2effc7db6f448c57ab42e8d88c6d54c81'), '--now', '1700000000', ...table],
      {
        stdin: '{"id":"evt_1","type":"filing.created"}',
        now: 0,
      },
    );
    expect(r).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('accepts a vector computed here, with the payload from a file', async () => {
    const r = await verify([...at(NOW - 5, sig(NOW - 5)), '--payload', file('body.json', BODY), ...table], { stdin: 'not this' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('valid\n');
  });

  it('checks the raw bytes: a body that is not UTF-8 verifies from stdin and from a file', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x7b, 0xc3]);
    const signature = sig(NOW, bytes);
    expect((await verify([...at(NOW, signature), ...table], { stdin: bytes })).code).toBe(0);
    expect((await verify([...at(NOW, signature), '--payload', file('binary.bin', bytes), ...table])).code).toBe(0);
  });

  it('says mismatch when one byte of the body changed, and exits 1', async () => {
    const changed = BODY.replace('evt_1', 'evt_2');
    const r = await verify([...at(NOW, sig(NOW)), ...table], { stdin: changed });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe('invalid: mismatch');
    expect(r.stdout).toMatch(/does not match/);
  });

  it('says mismatch for the same JSON re-serialised with other spacing', async () => {
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(JSON.parse(reserialised)).toEqual(JSON.parse(BODY));
    const r = await verify([...at(NOW, sig(NOW)), '-o', 'ndjson'], { stdin: reserialised });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, reason: 'mismatch', ageSeconds: 0 });
  });

  it('says mismatch for a signature made with another secret', async () => {
    const r = await verify([...at(NOW, sig(NOW, BODY, 'whsec_other')), '-o', 'ndjson']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).reason).toBe('mismatch');
  });

  it('accepts upper-case hex digits', async () => {
    const upper = `sha256=${hmacHex(SECRET, NOW, BODY).toUpperCase()}`;
    const r = await verify([...at(NOW, upper), ...table]);
    expect(r.code).toBe(0);
  });

  it.each([
    ['no sha256= prefix', hmacHex(SECRET, NOW, BODY)],
    ['another algorithm', `sha1=${hmacHex(SECRET, NOW, BODY)}`],
    ['63 hex digits', sig(NOW).slice(0, -1)],
    ['a non-hex digit', `${sig(NOW).slice(0, -1)}g`],
    ['an empty value', ''],
  ])('says malformed for a signature with %s', async (_what, signature) => {
    const r = await verify([...at(NOW, signature), ...table]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe('invalid: malformed');
    expect(r.stdout).toMatch(/--signature must be sha256= followed by 64 hex digits/);
  });
});

describe('verify-signature: the timestamp', () => {
  it.each([
    ['a decimal', `${NOW}.5`],
    ['a millisecond value', `${NOW}000`],
    ['letters', 'yesterday'],
    ['a negative number', `-${NOW}`],
    ['an empty value', ''],
  ])('says malformed for %s, even when signed over exactly that text', async (_what, timestamp) => {
    const r = await verify([...at(timestamp, sig(timestamp)), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, reason: 'malformed', ageSeconds: null });
  });

  it('says stale for a timestamp older than the tolerance, with its age and the tolerance', async () => {
    const ts = NOW - 301;
    const r = await verify([...at(ts, sig(ts)), ...table]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('invalid: stale\n  the timestamp is 301 seconds old; the tolerance is 300 seconds either way\n');
  });

  it('says stale for a timestamp further in the future than the tolerance', async () => {
    const ts = NOW + 301;
    const r = await verify([...at(ts, sig(ts)), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, reason: 'stale', ageSeconds: -301 });
    const text = await verify([...at(ts, sig(ts)), ...table]);
    expect(text.stdout).toMatch(/301 seconds in the future; the tolerance is 300 seconds/);
  });

  it('accepts a timestamp exactly at the tolerance, in both directions', async () => {
    for (const ts of [NOW - 300, NOW + 300]) {
      const r = await verify([...at(ts, sig(ts)), '-o', 'ndjson']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ valid: true, reason: null, ageSeconds: NOW - ts });
    }
  });

  it('uses --tolerance: 10 s accepts an age of 10 and refuses 11', async () => {
    expect((await verify([...at(NOW - 10, sig(NOW - 10)), '--tolerance', '10'])).code).toBe(0);
    const r = await verify([...at(NOW - 11, sig(NOW - 11)), '--tolerance', '10', '-o', 'ndjson']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, reason: 'stale', ageSeconds: 11 });
  });

  it('checks against the clock when --now is not given', async () => {
    const ts = NOW - 1000;
    expect((await verify([...at(ts, sig(ts))], { now: NOW })).code).toBe(1);
    expect((await verify([...at(ts, sig(ts))], { now: ts + 2 })).code).toBe(0);
    // --now overrides the clock.
    expect((await verify([...at(ts, sig(ts)), '--now', String(ts)], { now: NOW })).code).toBe(0);
  });
});

describe('verify-signature: missing values', () => {
  it('says missing (exit 1, not a usage error) without --signature', async () => {
    const r = await verify(['--timestamp', String(NOW), ...table]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('invalid: missing\n  no --signature was given\n');
    expect(r.stderr).toBe('');
  });

  it('says missing without --timestamp', async () => {
    const r = await verify(['--signature', sig(NOW), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ valid: false, reason: 'missing', ageSeconds: null });
  });

  it('says missing with neither, and names both ways to give them', async () => {
    const r = await verify(table);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('invalid: missing\n  neither --timestamp nor --signature was given (or use --headers <file>)\n');
  });
});

describe('verify-signature: --headers', () => {
  it('reads both values from a curl -D dump with a status line and CRLF', async () => {
    const dump = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Service-Signature: ${sig(NOW)}\r\nX-SERVICE-TIMESTAMP: ${NOW}\r\n\r\n`;
    const r = await verify(['--headers', file('headers-crlf.txt', dump), ...table]);
    expect(r).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('reads a request dump with LF line ends and the body after a blank line', async () => {
    const dump = `POST /hooks/rfs HTTP/1.1\nhost: 127.0.0.1\nx-service-timestamp:${NOW}\nx-service-signature:   ${sig(NOW)}  \n\n${BODY}\n`;
    const r = await verify(['--headers', file('headers-lf.txt', dump), ...table]);
    expect(r.code).toBe(0);
  });

  it('takes the last response of a dump with several', async () => {
    const stale = NOW - 10_000;
    const dump = `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nx-service-timestamp: ${stale}\r\nx-service-signature: ${sig(stale)}\r\n\r\nHTTP/2 200\r\nx-service-timestamp: ${NOW}\r\nx-service-signature: ${sig(NOW)}\r\n\r\n`;
    expect((await verify(['--headers', file('headers-multi.txt', dump)])).code).toBe(0);
  });

  it('says missing when the dump has no signature header', async () => {
    const r = await verify(['--headers', file('headers-nosig.txt', `HTTP/1.1 200 OK\nx-service-timestamp: ${NOW}\n`), ...table]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('invalid: missing\n  the header dump has no x-service-signature header\n');
  });

  it('refuses --headers together with --timestamp or --signature (exit 2)', async () => {
    const headers = file('headers-ok.txt', `x-service-timestamp: ${NOW}\nx-service-signature: ${sig(NOW)}\n`);
    for (const extra of [
      ['--timestamp', String(NOW)],
      ['--signature', sig(NOW)],
    ]) {
      const r = await verify(['--headers', headers, ...extra]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: --headers and --(timestamp|signature) cannot be used together/);
    }
  });

  it('refuses a file that is not a header dump (exit 2) without printing its lines', async () => {
    const r = await verify(['--headers', file('not-headers.txt', `x-service-timestamp: ${NOW}\n${BODY}\n`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2 of the header dump is not a "Name: value" header/);
    expect(r.stderr).not.toContain('evt_1');
  });

  it('refuses two different signature headers (exit 2)', async () => {
    const dump = `x-service-timestamp: ${NOW}\nx-service-signature: ${sig(NOW)}\nx-service-signature: ${sig(NOW + 1)}\n`;
    const r = await verify(['--headers', file('headers-two.txt', dump)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/2 different x-service-signature values/);
  });
});

describe('verify-signature: the secret', () => {
  const args = [...at(NOW, sig(NOW)), '-o', 'ndjson'];

  it('reads RFS_WEBHOOK_SECRET by default', async () => {
    expect((await verify(args, { env: { RFS_WEBHOOK_SECRET: SECRET } })).code).toBe(0);
    expect((await verify(args, { env: { RFS_WEBHOOK_SECRET: 'whsec_wrong' } })).code).toBe(1);
  });

  it('reads --secret-env <VAR> before RFS_WEBHOOK_SECRET', async () => {
    const r = await verify([...args, '--secret-env', 'MY_HOOK_SECRET'], {
      env: { MY_HOOK_SECRET: SECRET, RFS_WEBHOOK_SECRET: 'whsec_wrong' },
    });
    expect(r.code).toBe(0);
  });

  it('reads --secret-file, ignoring a trailing newline, before RFS_WEBHOOK_SECRET', async () => {
    for (const content of [`${SECRET}\n`, `${SECRET}\r\n`, SECRET]) {
      const r = await verify([...args, '--secret-file', file('secret.txt', content)], { env: { RFS_WEBHOOK_SECRET: 'whsec_wrong' } });
      expect(r.code).toBe(0);
    }
  });

  it('exits 2 without any secret and names the three ways to give one', async () => {
    const r = await verify(args, { env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--secret-file');
    expect(r.stderr).toContain('--secret-env');
    expect(r.stderr).toContain('RFS_WEBHOOK_SECRET');
  });

  it('exits 2 for an empty RFS_WEBHOOK_SECRET, an unset --secret-env variable or an empty --secret-file', async () => {
    expect((await verify(args, { env: { RFS_WEBHOOK_SECRET: '' } })).code).toBe(2);
    const unset = await verify([...args, '--secret-env', 'NOT_SET_HERE'], { env: { RFS_WEBHOOK_SECRET: SECRET } });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/NOT_SET_HERE is not set or empty/);
    expect((await verify([...args, '--secret-file', file('empty-secret.txt', '\n')])).code).toBe(2);
  });

  it('exits 2 for --secret-env together with --secret-file', async () => {
    const r = await verify([...args, '--secret-env', 'RFS_WEBHOOK_SECRET', '--secret-file', file('secret2.txt', SECRET)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--secret-env and --secret-file cannot be used together/);
  });

  it('never echoes a secret pasted where a variable name or a path belongs', async () => {
    const pasted = 'whsec_0123456789abcdef';
    for (const flag of ['--secret-env', '--secret-file']) {
      const r = await verify([...args, flag, pasted, '--verbose'], { env: {} });
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).not.toContain(pasted);
    }
    const withDash = await verify([...args, '--secret-env', 'whsec-0123-4567'], { env: {} });
    expect(withDash.code).toBe(2);
    expect(withDash.stderr).toMatch(/--secret-env takes the name of an environment variable/);
    expect(withDash.stderr).not.toContain('whsec-0123-4567');
  });
});

describe('verify-signature: flags and output', () => {
  it.each([
    ['--tolerance', 'abc'],
    ['--tolerance', '-1'],
    ['--tolerance', '1.5'],
    ['--now', 'soon'],
    ['--now', '1700000000000'],
    ['--now', '-5'],
  ])('exits 2 for %s %s', async (flag, value) => {
    const r = await verify([...at(NOW, sig(NOW)), `${flag}=${value}`]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`invalid ${flag}`);
  });

  it('exits 2 when the payload file cannot be read', async () => {
    const r = await verify([...at(NOW, sig(NOW)), '--payload', join(dir, 'does-not-exist.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read --payload .*does-not-exist\.json.*ENOENT/);
  });

  it('prints {valid, reason, ageSeconds} as indented JSON with -o json, and by default off a terminal', async () => {
    const json = await verify([...at(NOW - 7, sig(NOW - 7)), '-o', 'json']);
    expect(json.stdout).toBe('{\n  "valid": true,\n  "reason": null,\n  "ageSeconds": 7\n}\n');
    const byDefault = await verify(at(NOW - 7, sig(NOW - 7)));
    expect(byDefault.stdout).toBe(json.stdout);
    expect(byDefault.code).toBe(0);
  });

  it('prints one line with -o ndjson', async () => {
    const r = await verify([...at(NOW - 400, sig(NOW - 400)), '-o', 'ndjson']);
    expect(r.stdout).toBe('{"valid":false,"reason":"stale","ageSeconds":400}\n');
    expect(r.code).toBe(1);
  });

  it('never prints the expected signature or the secret, in any format or with --verbose', async () => {
    const expected = hmacHex(SECRET, NOW, BODY);
    const wrongBody = `${BODY} `;
    const wrongExpected = hmacHex(SECRET, NOW, wrongBody);
    for (const format of ['table', 'json', 'ndjson']) {
      const r = await verify([...at(NOW, sig(NOW)), '-o', format, '--verbose'], { stdin: wrongBody });
      expect(r.code).toBe(1);
      const all = (r.stdout + r.stderr).toLowerCase();
      expect(all).not.toContain(wrongExpected);
      expect(all).not.toContain(SECRET);
      // The given signature is the expected one for BODY; it is not echoed either.
      expect(all).not.toContain(expected);
    }
  });
});

describe('verify-signature: stdin', () => {
  it('reads the header dump from stdin with --headers - when the payload is a file', async () => {
    const payload = file('body-for-stdin-headers.json', BODY);
    const r = await verify(['--headers', '-', '--payload', payload, ...table], {
      stdin: `x-service-timestamp: ${NOW}\nx-service-signature: ${sig(NOW)}\n`,
    });
    expect(r.code).toBe(0);
  });

  it('refuses --headers - with the payload on stdin too (exit 2)', async () => {
    const r = await verify(['--headers', '-']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot both come from stdin/);
  });

  it('does not wait for stdin when the values are missing anyway', async () => {
    const t = bufferIO({ env: { RFS_WEBHOOK_SECRET: SECRET } });
    // A stdin that never ends: reading it would hang the test.
    const code = await runCli(['verify-signature', '-o', 'ndjson'], { ...t.io, stdin: new Readable({ read() {} }) });
    expect(code).toBe(1);
    expect(JSON.parse(t.stdout())).toEqual({ valid: false, reason: 'missing', ageSeconds: null });
  });
});

describe('verify-signature: interruption', () => {
  it('stops reading stdin on Ctrl-C and exits 130', async () => {
    const t = bufferIO({ env: { RFS_WEBHOOK_SECRET: SECRET } });
    const controller = new AbortController();
    const running = runCli(
      ['verify-signature', ...at(NOW, sig(NOW))],
      { ...t.io, stdin: new Readable({ read() {} }) },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    expect(await running).toBe(130);
    expect(t.stdout()).toBe('');
  });
});
