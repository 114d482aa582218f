// Bounded reads, the sandbox's part (sandbox.md, Options): --fixtures /dev/zero and a 300 MB --data that is not
// JSON were read until V8's string limit (~600 MB of memory, then "Cannot create a string
// longer than…"). They are read through the one bounded read (core/bounded-read.ts): refused at
// the first byte no JSON text holds, and past 256 MiB (PUT /_sandbox/state's limit) in any case.
// Run as the built CLI; the child reports its peak memory (VmHWM, test/helpers/peak-rss.cjs) on exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxStartError, startSandbox } from '../../src/sandbox/index.js';
import { RFS_BIN } from '../helpers/child.js';
import { LINUX, needs } from '../helpers/platform.js';

let dir: string;
let rssHook: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-sandbox-reads-'));
  rssHook = fileURLToPath(new URL('../helpers/peak-rss.cjs', import.meta.url));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The child's peak resident memory, in MB. */
  peakMb: number;
}

/** `rfs sandbox --port 0 …` with its peak memory; killed after 20 s, which fails the test. */
function sandbox(args: string[]): Promise<Exit> {
  const rssFile = join(dir, `rss-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', rssHook, RFS_BIN, 'sandbox', '--port', '0', ...args], {
      env: { PATH: process.env.PATH, RSS_OUT: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const kb = Number(readFileSync(rssFile, 'utf8'));
      resolve({ code, stdout, stderr, peakMb: kb / 1024 });
    });
  });
}

describe.skipIf(!LINUX.met)(needs(LINUX, 'bounded reads of --fixtures and --data'), () => {
  it('rfs sandbox --fixtures /dev/zero exits 2 at once, staying under 200 MB', async () => {
    const r = await sandbox(['--fixtures', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the fixtures file /dev/zero is not valid JSON');
    expect(r.stderr).not.toContain('\u0000');
    expect(r.peakMb).toBeLessThan(200);
  });

  it('rfs sandbox --data /dev/zero exits 2 at once, staying under 200 MB', async () => {
    const r = await sandbox(['--data', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the data file /dev/zero is not valid JSON; move it away to start fresh');
    expect(r.peakMb).toBeLessThan(200);
  });

  it('a 300 MB --data that is text but not a state is refused at its first chunk, staying under 200 MB', async () => {
    const file = join(dir, 'log.txt');
    const handle = await open(file, 'w');
    const line = Buffer.from(`${'2026-11-26 00:00:00 INFO something happened '.repeat(20)}\n`);
    const block = Buffer.concat(Array.from({ length: Math.ceil((1 << 20) / line.length) }, () => line));
    for (let written = 0; written < 300 * 2 ** 20; written += block.length) await handle.write(block);
    await handle.close();
    const r = await sandbox(['--data', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the data file ${file} is not valid JSON`);
    expect(r.stderr).not.toMatch(/unexpected failure|Cannot create a string/);
    expect(r.peakMb).toBeLessThan(200);
    rmSync(file);
  });

  it('a --fixtures file past 256 MiB is refused by its size, never read to the end', async () => {
    // Whitespace only: nothing in it says "not JSON" before the limit does.
    const file = join(dir, 'spaces.json');
    const handle = await open(file, 'w');
    const block = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 300; i++) await handle.write(block);
    await handle.close();
    const r = await sandbox(['--fixtures', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the fixtures file ${file} is larger than 256 MiB`);
    expect(r.stderr).not.toMatch(/unexpected failure|Cannot create a string/);
    rmSync(file);
  });
});

describe('startSandbox', () => {
  it('rejects fixtures and a data file from /dev/zero with a SandboxStartError', async () => {
    await expect(startSandbox({ port: 0, seed: 'z', fixtures: '/dev/zero' })).rejects.toThrow(
      new SandboxStartError('the fixtures file /dev/zero is not valid JSON'),
    );
    await expect(startSandbox({ port: 0, seed: 'z', dataFile: '/dev/zero' })).rejects.toThrow(
      'the data file /dev/zero is not valid JSON; move it away to start fresh',
    );
  });
});
