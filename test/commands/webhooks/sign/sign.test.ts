// rfs webhooks sign (cli.md, webhooks): the four x-service-* headers for a body,
// checked against an HMAC computed here and against `rfs verify-signature`, in json and as
// `name: value` lines; the secret is never printed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../src/cli/run.js';
import { fakeTime } from '../../../helpers/clock.js';
import { bufferIO } from '../../../helpers/io.js';
import { signed } from '../listen/support.js';

const SECRET = 'whsec_signtestsecret0123456789abcdefgh';
const BODY = '{"id":"dlv_abcdefghij0123456789","event":"recording.completed","data":{"id":"rec_1","title":"Ünïcode ✓"}}';
let dir: string;
let payload: string;
let secretFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-sign-'));
  payload = join(dir, 'body.json');
  secretFile = join(dir, 'secret.txt');
  writeFileSync(payload, BODY);
  writeFileSync(secretFile, `${SECRET}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The run's clock. */
const NOW_MS = Date.parse('2026-11-22T14:05:00Z');

async function rfs(argv: string[], o: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: join(dir, 'config'), ...o.env }, stdin: o.stdin });
  const code = await runCli(argv, t.io, { clock: fakeTime(NOW_MS).clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('webhooks sign', () => {
  it('prints the four headers as json, signed as api.md says, with the payload own id and event', async () => {
    const r = await rfs(['webhooks', 'sign', '--payload', payload, '--secret-file', secretFile, '--timestamp', '1700000000', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      'x-service-signature': signed(SECRET, '1700000000', BODY),
      'x-service-timestamp': '1700000000',
      'x-service-event': 'recording.completed',
      'x-service-delivery': 'dlv_abcdefghij0123456789',
    });
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('reads stdin by default and prints `name: value` lines, timestamped now', async () => {
    const now = Math.floor(NOW_MS / 1000);
    const r = await rfs(['webhooks', 'sign', '-o', 'table'], { stdin: 'hello', env: { RFS_WEBHOOK_SECRET: SECRET } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`x-service-signature: ${signed(SECRET, now, 'hello')}`);
    expect(lines[1]).toBe(`x-service-timestamp: ${now}`);
    // Not a payload: the event it would be, and a fresh delivery id of the service's form.
    expect(lines[2]).toBe('x-service-event: recording.completed');
    expect(lines[3]).toMatch(/^x-service-delivery: dlv_[0-9A-Za-z]{20}$/);
    expect(lines).toHaveLength(4);
  });

  it('signs what verify-signature accepts, and not another body', async () => {
    const s = await rfs(['webhooks', 'sign', '--payload', payload, '--secret-env', 'HOOK', '-o', 'json'], { env: { HOOK: SECRET } });
    const headers = JSON.parse(s.stdout) as Record<string, string>;
    const verify = (file: string) =>
      rfs(
        [
          'verify-signature',
          '--timestamp',
          headers['x-service-timestamp'] ?? '',
          '--signature',
          headers['x-service-signature'] ?? '',
          '--payload',
          file,
          '-o',
          'json',
        ],
        { env: { RFS_WEBHOOK_SECRET: SECRET } },
      );
    const ok = await verify(payload);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, reason: null });
    const other = join(dir, 'other.json');
    writeFileSync(other, `${BODY} `);
    const bad = await verify(other);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ valid: false, reason: 'mismatch' });
  });

  it('refuses a bad --timestamp, a missing payload file and a missing secret with exit 2', async () => {
    const withSecret = { env: { RFS_WEBHOOK_SECRET: SECRET } };
    expect((await rfs(['webhooks', 'sign', '--payload', payload, '--timestamp', '1700000000000'], withSecret)).code).toBe(2);
    const missing = await rfs(['webhooks', 'sign', '--payload', join(dir, 'nope.json')], withSecret);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('ENOENT');
    const noSecret = await rfs(['webhooks', 'sign', '--payload', payload]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('RFS_WEBHOOK_SECRET');
  });
});
