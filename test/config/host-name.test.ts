// a host name over 253 characters (or with a part over 63) was accepted by
// --base-url, RFS_BASE_URL and `config set base-url`, and every command then exited 1 with
// "unexpected failure: getaddrinfo EINVAL … a bug". It is bad input: exit 2 at validation,
// nothing stored, nothing sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { bufferIO } from '../helpers/io.js';

const KEY = 'service_pk_hostNameTest000';
/** Labels of 50 characters, joined by dots, `total` characters long at least. */
const longName = (total: number): string => {
  const labels: string[] = [];
  while (labels.join('.').length < total) labels.push('a'.repeat(50));
  return labels.join('.');
};
const TOO_LONG = `https://${longName(254)}.invalid`;
// .invalid (RFC 6761): should the check regress, no resolver is asked about a real name.
const LONG_LABEL = `https://${'b'.repeat(64)}.invalid`;
/** 253 characters: the longest name there may be. */
const LONGEST = `https://${longName(240)
  .slice(0, 253 - '.invalid'.length)
  .replace(/\.$/, 'x')}.invalid`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-host-name-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rfs(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: dir, RFS_API_KEY: KEY, ...env } });
  const code = await runCli(argv, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('a host name the resolver cannot take', () => {
  for (const [what, url, says] of [
    ['over 253 characters', TOO_LONG, /^error: invalid base URL: its host name is \d+ characters long$/m],
    [
      'with a part over 63 characters',
      LONG_LABEL,
      /^error: invalid base URL: a part of its host name is 64 characters long \(bbbbbbbbbbbb…\)$/m,
    ],
  ] as const) {
    it(`${what}: exit 2 from --base-url, RFS_BASE_URL and config set base-url`, async () => {
      for (const run of [
        () => rfs(['recordings', 'list', '--base-url', url]),
        () => rfs(['recordings', 'list'], { RFS_BASE_URL: url }),
        () => rfs(['config', 'set', 'base-url', url]),
      ]) {
        const out = await run();
        expect(out.code, out.stderr).toBe(2);
        expect(out.stderr).toMatch(says);
        expect(out.stderr).toContain('a host name has at most 253 characters');
        expect(out.stderr).not.toMatch(/unexpected|bug/);
      }
      // Nothing was stored.
      expect((await rfs(['config', 'get', 'base-url'])).stdout).not.toContain('.invalid');
    });
  }

  it('a name of exactly 253 characters is a valid base URL', async () => {
    expect(new URL(LONGEST).hostname).toHaveLength(253);
    const out = await rfs(['config', 'set', 'base-url', LONGEST]);
    expect(out.code, out.stderr).toBe(0);
    await rfs(['config', 'unset', 'base-url']);
  });
});
