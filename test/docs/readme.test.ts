// the README sends nobody to a file they do not have, its install section
// leads with what a user does, and its examples print something on the seeded sandbox.
// it is a front page of at most 300 lines; the rest is in docs/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const INSTALL = readFileSync(new URL('../../docs/install.md', import.meta.url), 'utf8');
const CONTRIBUTING = readFileSync(new URL('../../CONTRIBUTING.md', import.meta.url), 'utf8');
/** Each way a user installs rfs, as the install texts name it. */
const WAYS = [
  'npm i -g rfs-cli',
  'rfs-<version>-<platform>.tar.gz',
  'apt install ./rfs_<version>_amd64.deb',
  'brew install',
  'scoop install',
];
const section = (text: string, title: string) => {
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, title).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 4);
  return text.slice(start, end < 0 ? undefined : end);
};

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 42 });
});
afterAll(() => sandbox.close());

describe('README', () => {
  it("never points to the spec's sandbox.md (readers have no ../shared)", () => {
    expect(README).not.toContain('../shared');
    expect(README).not.toMatch(/\(sandbox\.md\)/);
  });

  it("is a front page: at most 300 lines, with the quick start's two commands and a link to every guide", () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
    expect(section(README, 'Quick start')).toContain('npm ci && npm run demo');
    expect(section(README, 'Quick start')).toContain('npm test');
    for (const page of readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md'))) {
      expect(README, page).toContain(`(docs/${page})`);
    }
  });

  it('links only to files that exist', () => {
    for (const [, target] of README.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)) {
      expect(existsSync(new URL(`../../${target}`, import.meta.url)), target).toBe(true);
    }
  });

  // what a user does on each platform first, then the clone for contributors.
  // the npm package is rfs-cli: a user prefix for EACCES, npx with the package named.
  it('Install leads with each way a user installs, the npm package by its name, EACCES and npx answered', () => {
    const install = section(README, 'Install');
    for (const way of WAYS) {
      expect(install, way).toContain(way);
    }
    expect(install).toContain('EACCES');
    expect(install).toContain('npm config set prefix ~/.local');
    expect(install).toContain('npx --package ./rfs-cli-<version>.tgz rfs');
  });

  it('docs/install.md: every way first, then the clone, where npm link is said to install a link', () => {
    const clone = INSTALL.indexOf('\n## From a clone');
    expect(clone).toBeGreaterThan(-1);
    for (const way of WAYS) {
      expect(INSTALL.indexOf(way), way).toBeGreaterThan(-1);
      expect(INSTALL.indexOf(way), way).toBeLessThan(clone);
    }
    expect(INSTALL).toMatch(/MIT/);
    const fromClone = INSTALL.slice(clone);
    expect(fromClone.indexOf('npm link')).toBeGreaterThan(-1);
    expect(fromClone).toMatch(/install a \*\*link\*\* to the clone/);
    expect(section(INSTALL, 'From a clone')).not.toContain('code cache');
    expect(section(CONTRIBUTING, 'Development')).toContain('The build makes the CLI once');
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
