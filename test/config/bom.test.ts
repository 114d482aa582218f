// A config file saved by an editor that starts files with a UTF-8 byte-order mark (Notepad,
// some Windows tools) is read like any other, through the whole CLI.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

let tmp: string;
let dir: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rfs-bom-'));
  dir = join(tmp, 'config');
  mkdirSync(dir, { mode: 0o700 });
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const profile = { baseUrl: 'http://127.0.0.1:4010', apiKey: 'service_pk_bomKEYabcdef_4444' };

function cli(argv: string[]) {
  const t = bufferIO({ env: { RFS_CONFIG_DIR: dir } });
  return { t, run: () => runCli(argv, t.io, { clock: fakeTime().clock }) };
}

it('reads a config file that starts with a UTF-8 BOM, and writes it back without one', async () => {
  const text = JSON.stringify({ defaultProfile: 'a', profiles: { a: profile, b: profile } }, undefined, 2);
  writeFileSync(join(dir, 'config.json'), `\uFEFF${text}`, { mode: 0o600 });
  const { t, run } = cli(['auth', 'switch', 'b']);
  expect(await run(), t.stderr()).toBe(0);
  expect(t.stderr()).toContain('Default profile is now "b"');
  const after = readFileSync(join(dir, 'config.json'), 'utf8');
  expect(after.charCodeAt(0)).not.toBe(0xfeff);
  expect(JSON.parse(after)).toMatchObject({ defaultProfile: 'b', profiles: { a: profile, b: profile } });
});

it('still calls a file with two BOMs damaged, without quoting it', async () => {
  writeFileSync(join(dir, 'config.json'), `\uFEFF\uFEFF${JSON.stringify({ profiles: { a: profile } })}`, { mode: 0o600 });
  const { t, run } = cli(['auth', 'switch', 'a']);
  expect(await run()).toBe(2);
  expect(t.stderr()).toMatch(/is damaged: it is not valid JSON/);
  expect(t.stderr()).not.toContain(profile.apiKey);
});
