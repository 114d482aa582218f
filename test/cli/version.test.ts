// `rfs --version` prints the version alone; with --verbose it adds the commit and date
// of the build, the Node it runs on and the platform (release.md, Single executables).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { runRfs } from '../helpers/child.js';
import { bufferIO } from '../helpers/io.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

async function rfs(argv: string[]) {
  const t = bufferIO();
  const code = await runCli(argv, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

describe('rfs --version', () => {
  it('alone prints the version and nothing else', async () => {
    expect(await rfs(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([[['--version', '--verbose']], [['--verbose', '--version']], [['--version', '-v']]])(
    '%j adds the build and the runtime',
    async (argv) => {
      // vitest.config.ts stands in for the build's stamp.
      expect(await rfs(argv)).toEqual({
        code: 0,
        stdout: [
          version,
          'commit:    0123456789ab',
          'built:     2026-01-02T03:04:05Z',
          `node:      ${process.version}`,
          `platform:  ${process.platform}-${process.arch}`,
          '',
        ].join('\n'),
        stderr: '',
      });
    },
  );

  it('the build stamps the commit it was made from and when', async () => {
    const r = await runRfs(['--version', '--verbose']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(version);
    // A commit of this repository whose sources are the ones checked out: the build is made again
    // when a source changes (test/support/global-setup.ts), not when a commit changes none.
    // Built from a checkout with changes, it names the commit those changes were made on, which
    // is then HEAD or one before it.
    const [, commit = '', dirty] = /^commit: +([0-9a-f]{12})(-dirty)?$/.exec(lines[1] ?? '') ?? [];
    expect(commit).toMatch(/^[0-9a-f]{12}$/);
    const sources = ['src', 'bin', 'scripts', 'package.json', 'package-lock.json'];
    if (dirty === undefined) expect(() => execFileSync('git', ['diff', '--quiet', commit, '--', ...sources])).not.toThrow();
    else expect(() => execFileSync('git', ['merge-base', '--is-ancestor', commit, 'HEAD'])).not.toThrow();
    const built = /^built: +(\S+)$/.exec(lines[2] ?? '')?.[1] ?? '';
    expect(built).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(built)).toBeLessThanOrEqual(Date.now());
    expect(lines.slice(3)).toEqual([`node:      ${process.version}`, `platform:  ${process.platform}-${process.arch}`]);
  });
});
