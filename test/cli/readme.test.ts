// issue 12, item 16: the README sends nobody to a file they do not have, its install section
// leads with what a user does, and its examples print something on the seeded sandbox.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = (title: string) => {
  const start = README.indexOf(`\n## ${title}\n`);
  return README.slice(start, README.indexOf('\n## ', start + 4));
};

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 42 });
});
afterAll(() => sandbox.close());

describe('README', () => {
  it('never points to sandbox.md', () => {
    expect(README).not.toContain('sandbox.md');
  });

  // issue 25: what a user does on each platform first, then the clone for contributors.
  it('Install leads with each way a user installs, then the clone: npm link among its commands, and says it links', () => {
    const install = section('Install');
    const clone = install.indexOf('\n### From a clone');
    expect(clone).toBeGreaterThan(-1);
    for (const way of [
      'npm i -g ./rfs-<version>.tgz',
      'rfs-<version>-<platform>.tar.gz',
      'apt install ./rfs_<version>_amd64.deb',
      'brew install',
      'scoop install',
    ]) {
      expect(install.indexOf(way), way).toBeGreaterThan(-1);
      expect(install.indexOf(way), way).toBeLessThan(clone);
    }
    expect(install).toMatch(/MIT/);
    const fromClone = install.slice(clone);
    expect(fromClone.indexOf('npm link')).toBeGreaterThan(-1);
    expect(fromClone.indexOf('npm link')).toBeLessThan(fromClone.indexOf('\n- '));
    expect(fromClone).toMatch(/install a \*\*link\*\* to the clone/);
    expect(install).not.toContain('code cache');
    expect(section('Development')).toContain('The build makes the CLI twice');
  });

  it('every `rfs recordings list … --updated-since` example prints something on the seeded sandbox', async () => {
    const examples = [...README.matchAll(/^rfs (recordings list [^#\n]*--updated-since [^#\n]*?)\s*(?:#.*)?$/gm)].map((m) => m[1] ?? '');
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const t = bufferIO({ env: { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
      const code = await runCli([...example.split(/\s+/), '-o', 'json'], t.io, { clock: fakeTime().clock });
      expect(code, example).toBe(0);
      expect((JSON.parse(t.stdout()) as unknown[]).length, example).toBeGreaterThan(0);
    }
  });

  it('recordings created through the control API are not dated in the future', async () => {
    const before = Date.now();
    const created = await sandbox.control.createRecording({ title: 'now' });
    expect(Date.parse(created.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(created.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(created.updatedAt)).toBeLessThanOrEqual(Date.now());
  });
});
