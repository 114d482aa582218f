// Bounded local reads (cli.md, Input): `rfs file --metadata @/dev/zero` read until V8's string
// limit (~600 MB). It is read as --input is, at most 1 MiB, and refused with exit 2 at once:
// the built CLI, as a child process, stays under 200 MB however endless the file is.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../helpers/child.js';

let dir: string;
let preload: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-metadata-read-'));
  // Loaded before the CLI: writes the process's peak resident memory (KiB) when it exits.
  preload = fileURLToPath(new URL('../helpers/peak-rss.cjs', import.meta.url));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rfs(args: string[]): Promise<{ code: number | null; stderr: string; maxRssMb: number }> {
  const rssOut = join(dir, `rss-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve, reject) => {
    // Port 9 on loopback: should the read ever end and a request go out, it is refused at once.
    const env = {
      PATH: process.env.PATH,
      RFS_CONFIG_DIR: dir,
      RFS_API_KEY: 'service_pk_metadataRead000',
      RFS_BASE_URL: 'http://127.0.0.1:9',
      RSS_OUT: rssOut,
    };
    const child = spawn(process.execPath, ['--require', preload, RFS_BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, maxRssMb: Number(readFileSync(rssOut, 'utf8')) / 1024 });
    });
  });
}

describe('file --metadata @<file> is read with a bound', () => {
  it('@/dev/zero: exit 2 with the limit, nothing sent, and memory under 200 MB', async () => {
    const r = await rfs(['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--metadata', '@/dev/zero']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: --metadata file \/dev\/zero holds more than 1048576 bytes: too much for a filing's metadata$/m);
    expect(r.maxRssMb).toBeLessThan(200);
  });

  it('a missing file is exit 2 naming it', async () => {
    const r = await rfs(['file', 'rec_1', '--provider', 'crm', '--external-id', 'X', '--metadata', `@${join(dir, 'none.json')}`]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('cannot read --metadata file');
    expect(r.stderr).toContain('ENOENT');
  });
});
