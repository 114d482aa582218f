// RFS_API_KEY_FILE (cli.md, Connection and credentials; docs/kubernetes.md): the key read from
// a file, as a Kubernetes Secret is mounted (links into `..data/`), in place of RFS_API_KEY. The
// file's text never appears in a message, and what is not a small regular file is refused at once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { resolveConnection } from '../../src/config/connection.js';
import { openProfiles } from '../../src/config/profiles.js';
import { exitCodeFor } from '../../src/core/errors.js';
import { bufferIO } from '../helpers/io.js';
import { type Harness, start } from '../sandbox/helpers.js';

const KEY = 'service_pk_from_file_key_abcd';
let dir: string;
let h: Harness;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-key-file-'));
  h = await start({ rateLimit: 0, recordings: 3 });
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const store = () => openProfiles({ RFS_CONFIG_DIR: join(dir, 'config') });
function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}
function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('RFS_API_KEY_FILE', () => {
  it('gives the key in the file, its trailing newline ignored, through the links of a mounted Secret', () => {
    // A Secret volume: <mount>/api-key → ..data/api-key, ..data → a dated folder.
    const mount = join(dir, 'secret');
    mkdirSync(join(mount, '..2026_11_28'), { recursive: true });
    writeFileSync(join(mount, '..2026_11_28', 'api-key'), `${KEY}\n`);
    symlinkSync('..2026_11_28', join(mount, '..data'));
    symlinkSync('..data/api-key', join(mount, 'api-key'));
    const c = resolveConnection({}, { RFS_API_KEY_FILE: join(mount, 'api-key'), RFS_BASE_URL: 'https://api.example.com' }, store());
    expect(c.apiKey).toBe(KEY);
  });

  it('refuses both variables at once (exit 2): neither is guessed', () => {
    const file = write('both', KEY);
    const error = caught(() => resolveConnection({}, { RFS_API_KEY: 'service_pk_env_key_eeee', RFS_API_KEY_FILE: file }, store()));
    expect(error.message).toBe('both RFS_API_KEY and RFS_API_KEY_FILE are set: give the key one way');
    expect(exitCodeFor(error)).toBe(2);
  });

  it('refuses a missing, empty, oversized, FIFO or device file by its path, never quoting what it holds (exit 2)', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const secretish = 'hunter2-not-a-key';
    const cases: [string, RegExp][] = [
      [join(dir, 'absent'), /cannot read the key file .*absent \(RFS_API_KEY_FILE\): ENOENT/],
      [write('empty', '\n'), /the key file .*empty \(RFS_API_KEY_FILE\) is empty/],
      [write('large', `${secretish}\n`.repeat(400)), /is \d+ bytes: an API key file holds one key/],
      [fifo, /the key file .*fifo \(RFS_API_KEY_FILE\) is not a regular file/],
      ['/dev/zero', /the key file \/dev\/zero \(RFS_API_KEY_FILE\) is not a regular file/],
      [write('not-a-key', `${secretish}\n`), /^that is not an API key/],
    ];
    for (const [file, message] of cases) {
      const error = caught(() => resolveConnection({}, { RFS_API_KEY_FILE: file }, store()));
      expect(error.message, file).toMatch(message);
      expect(error.message).not.toContain(secretish);
      expect(exitCodeFor(error)).toBe(2);
    }
  });

  it('a command sends the key of the file, and neither -v nor doctor prints it', async () => {
    const file = write('key', `${h.keys.admin}\n`);
    const env = { RFS_API_KEY_FILE: file, RFS_BASE_URL: h.base, RFS_CONFIG_DIR: join(dir, 'cli-config') };
    const list = bufferIO({ env });
    expect(await runCli(['recordings', 'list', '-o', 'json', '-v'], list.io)).toBe(0);
    expect(JSON.parse(list.stdout()).length).toBe(3);
    expect(list.stderr()).not.toContain(h.keys.admin);

    const doctor = bufferIO({ env });
    await runCli(['doctor', '-o', 'json'], doctor.io);
    const report = JSON.parse(doctor.stdout());
    const checks = (report.checks ?? report) as { name?: string; check?: string; detail?: string }[];
    const source = checks.find((c) => (c.name ?? c.check) === 'key-source');
    expect(source?.detail).toMatch(/^RFS_API_KEY_FILE: service_pk_…\w{4}$/);
    expect(doctor.stdout() + doctor.stderr()).not.toContain(h.keys.admin);
  });
});
