// `npm run release:check [-- --version X]`: checks release/<version>/ as ../shared/spec/release.md
// says ("Checked before it is called a release"), on this machine, after `npm run release`.
//
// - The executables: linux-x64 as is, linux-arm64 under qemu-user, each from its archive: it prints the version (and with --verbose the Node and platform it
//   carries), lists recordings from a sandbox on 127.0.0.1 (the repository's build of
//   `rfs sandbox --port 0`, stopped by its PID at the end) exactly as the repository's build
//   lists them, and verifies a webhook signature (the README's example; a changed body fails).
//   windows-x64 is checked for its format (PE32+, x86-64, the CLI injected), as Debian 12's Wine 8
//   cannot start Node 26 (WINE_NODE_26). linux-x64 must not read NODE_OPTIONS (a planted
//   --require file that plain Node runs is not run by rfs).
// - Each archive holds the executable, README.md, LICENSE, the man page and the completions.
// - The .debs: dpkg-deb --info and --contents, installed by dpkg into a root of their own, run
//   from there, and `man` finds the page there.
// - The .rpms: rpm -qip, -qpR and -qpl, unpacked by rpm2cpio | cpio into a root of their own,
//   run from there (aarch64 under qemu-user), `man` and zsh's compinit find their files.
// - Each .deb's Depends and .rpm's Requires are what readelf -d of its executable gives
//   (scripts/linux-deps.mjs), libatomic included.
// - SHA256SUMS (sha256sum -c); SHA256SUMS.minisig (minisign -V with minisign.pub, or with the
//   throwaway key of a build without the release key; a changed SHA256SUMS must fail); the
//   formula passes ruby -c, and it and the manifest name the release's URLs and checksums.
// - Every SBOM validates against CycloneDX's schema; each executable's and the image's names
//   Node and is of the file shipped.
// - The README of the npm package, the archives, the .deb and the .rpm links nothing relative.
// - macOS: the x64 executable's Mach-O header (magic, CPU type, the blob's segment, no stale
//   signature), no arm64 artifact and the release notes say why.
// - The npm tarball (rfs-cli): npm publish --dry-run, an install into an empty prefix with nothing
//   on stderr, `man rfs` there, npx, publint, and @arethetypeswrong/cli for `rfs-cli/sandbox`.
// - The OCI image: skopeo reads both platforms and their config (user, entrypoint, volume,
//   labels); each platform's root file system, unpacked, runs `rfs --version` and one `rfs sync`
//   pass against the sandbox in a chroot as the image's user (arm64 through qemu-user copied into
//   the unpacked tree, since binfmt_misc is not set up here; there the pass is a --dry-run, as
//   qemu-user cannot start the arm64 /bin/sh a real pass runs its command with), and holds no executable but rfs,
//   /bin/sh (dash, which `sync --exec` needs) and tini (PID 1, which reaps), no package manager,
//   no compiler. umoci unpacks each platform by its name (<version>-<arch>), with the release's
//   executable in it.
// - The Kubernetes manifests: each kustomization rendered by kubectl kustomize, every object
//   validated (scripts/kubernetes.mjs), the PrometheusRule the same as the rules file, and the
//   image tag the release's version; the fleet of the example workspace list (scripts/fleet.mjs)
//   generated, rendered and validated the same way.
// - CHANGELOG.md has the version's entry.
//
// Ends with "N passed, N failed"; exit 1 when anything failed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ENTRYPOINT, IMAGE_ENV, IMAGE_PLATFORMS, IMAGE_USER, imageName, platformTag, RFS_PATH, VOLUME } from './image.mjs';
import { KUSTOMIZATIONS, PROMETHEUS_RULE, prometheusRule, render, renderFleet, validate } from './kubernetes.mjs';
import { debDepends, neededLibraries, rpmRequires } from './linux-deps.mjs';
import {
  archiveName,
  changelogEntry,
  debName,
  debVersion,
  downloadUrl,
  executableSbomName,
  FORMULA,
  imageSbomName,
  MACOS_ARM64,
  NODE_VERSION,
  rpmName,
  rpmVersion,
  SCOOP_MANIFEST,
  sbomName,
  shippedReadme,
  TARGETS,
  WINE_NODE_26,
} from './release.mjs';
import { cyclonedxValidator } from './sbom.mjs';
import { keyId, keyLine, PUBLIC_KEY, SIGNATURE, throwawayPublicKey, verify } from './signing.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const { values: flags } = parseArgs({ options: { version: { type: 'string' }, dir: { type: 'string' } } });
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const version = flags.version ?? pkg.version;
const dir = resolve(flags.dir ?? join(ROOT, 'release', version));

/** The README's verify-signature example (README.md, verify-signature). */
const SIGNED = {
  body: '{"id":"evt_1","type":"filing.created"}',
  secret: 'whsec_test_secret',
  args: [
    '--timestamp',
    '1700000000',
    '--now',
    '1700000100',
    '--signature',
    'sha256=57b147fd6da72d808ece3014a78236a2effc7db6f448c57ab42e8d88c6d54c81',
  ],
};
/** How each platform reports itself in `--version --verbose` (process.platform-process.arch). */
const REPORTED_PLATFORM = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64' };
/** chroot(8), by its path: the chroot's commands run with the image's PATH, which has no sbin. */
const CHROOT = ['/usr/sbin/chroot', '/usr/bin/chroot'].find((path) => existsSync(path)) ?? 'chroot';
/** A file NODE_OPTIONS=--require would run: it leaves a mark where it ran. */
const PLANTED = "require('node:fs').writeFileSync('planted-ran', 'yes');\n";

let passed = 0;
let failed = 0;
async function check(name, body) {
  const t = Date.now();
  try {
    await body();
    passed += 1;
    process.stdout.write(`ok      ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
  } catch (error) {
    failed += 1;
    process.stdout.write(`FAILED  ${name}: ${error.message.replace(/\n/g, '\n        ')}\n`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Runs a command to its end with stdout and stderr in files (wine's Node fails with EBADF on
 * pipes), and returns what they hold.
 */
function runToFiles(work, file, args, { env = process.env, cwd = work, timeout = 180_000 } = {}) {
  const out = join(work, `out-${process.hrtime.bigint()}`);
  const fdOut = openSync(`${out}.stdout`, 'w');
  const fdErr = openSync(`${out}.stderr`, 'w');
  let result;
  try {
    result = spawnSync(file, args, { cwd, env, stdio: ['ignore', fdOut, fdErr], timeout });
  } finally {
    closeSync(fdOut);
    closeSync(fdErr);
  }
  if (result.error) throw result.error;
  return {
    code: result.status,
    signal: result.signal,
    stdout: readFileSync(`${out}.stdout`, 'utf8'),
    stderr: readFileSync(`${out}.stderr`, 'utf8'),
  };
}

function succeeds(label, result) {
  assert(
    result.code === 0,
    `${label} exited ${result.code ?? result.signal}: ${result.stderr.slice(0, 2000)}${result.stdout.slice(0, 500)}`,
  );
  return result;
}

/** `rfs sandbox --port 0` from the repository's build; resolves with its JSON line. */
async function startSandbox() {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'rfs.js'), 'sandbox', '--port', '0', '--seed', '25'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const line = await new Promise((resolveLine, reject) => {
    createInterface({ input: child.stdout }).once('line', resolveLine);
    child.once('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${stderr}`)));
  });
  const { baseUrl, apiKeys } = JSON.parse(line);
  assert(new URL(baseUrl).hostname === '127.0.0.1', `the sandbox listens on ${baseUrl}`);
  return {
    baseUrl,
    apiKeys,
    stop: () =>
      new Promise((resolveStop) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
        child.once('exit', () => resolveStop());
        process.kill(child.pid, 'SIGTERM');
      }),
  };
}

/** What each single executable must do, however it is started (`launch` turns rfs args into a command). */
async function checkExecutable(work, platform, launch, sandbox, expectedList) {
  const cwd = join(work, `run-${platform}`);
  await mkdir(join(cwd, 'config'), { recursive: true, mode: 0o700 });
  await writeFile(join(cwd, 'body.json'), SIGNED.body);
  await writeFile(join(cwd, 'changed.json'), `${SIGNED.body} `);
  // Relative paths only: under wine, Windows paths are another spelling of the same files.
  const env = {
    ...process.env,
    NO_COLOR: '1',
    RFS_CONFIG_DIR: 'config',
    RFS_BASE_URL: sandbox.baseUrl,
    RFS_API_KEY: sandbox.apiKeys.readOnly,
    RFS_WEBHOOK_SECRET: SIGNED.secret,
  };
  const rfs = (args) => {
    const [file, ...rest] = launch([...args]);
    return runToFiles(work, file, rest, { env, cwd });
  };

  const plain = succeeds('--version', rfs(['--version']));
  assert(plain.stdout === `${version}\n`, `--version printed ${JSON.stringify(plain.stdout)}, not ${version}`);
  const verbose = succeeds('--version --verbose', rfs(['--version', '--verbose'])).stdout;
  for (const expected of [`node:      v${NODE_VERSION}`, `platform:  ${REPORTED_PLATFORM[platform]}`]) {
    assert(verbose.includes(`\n${expected}\n`), `--version --verbose lacks "${expected}":\n${verbose}`);
  }
  assert(/\ncommit: +[0-9a-f]{12}(-dirty)?\n/.test(verbose), `--version --verbose names no commit:\n${verbose}`);

  const list = succeeds('recordings list', rfs(['recordings', 'list', '-o', 'json', '--limit', '5']));
  assert(list.stdout === expectedList, `recordings list printed\n${list.stdout.slice(0, 600)}\nnot what the repository's build printed`);

  const valid = succeeds('verify-signature', rfs(['verify-signature', ...SIGNED.args, '--payload', 'body.json', '-o', 'json']));
  assert(JSON.parse(valid.stdout).valid === true, `verify-signature printed ${valid.stdout}`);
  const changed = rfs(['verify-signature', ...SIGNED.args, '--payload', 'changed.json', '-o', 'json']);
  assert(changed.code === 1 && JSON.parse(changed.stdout).reason === 'mismatch', `a changed body: exit ${changed.code}, ${changed.stdout}`);
}

/**
 * NODE_OPTIONS=--require <file> must not run the file inside rfs. The same
 * planted file first runs under this Node, so the plant itself is known to work.
 */
async function checkNodeOptionsIgnored(work, exe) {
  const cwd = join(work, 'node-options');
  await mkdir(join(cwd, 'config'), { recursive: true });
  await writeFile(join(cwd, 'planted.cjs'), PLANTED);
  const env = { ...process.env, NO_COLOR: '1', RFS_CONFIG_DIR: 'config', NODE_OPTIONS: '--require ./planted.cjs' };
  succeeds('node with the planted NODE_OPTIONS', runToFiles(work, process.execPath, ['-e', '0'], { env, cwd }));
  assert(existsSync(join(cwd, 'planted-ran')), 'the planted file did not run even under node: the check proves nothing');
  await rm(join(cwd, 'planted-ran'));
  for (const args of [['--version'], ['config', 'list']]) {
    const ran = runToFiles(work, exe, args, { env, cwd });
    assert(ran.code === 0, `rfs ${args.join(' ')} with NODE_OPTIONS exited ${ran.code}: ${ran.stderr}`);
    assert(!existsSync(join(cwd, 'planted-ran')), `rfs ${args.join(' ')} ran the file NODE_OPTIONS --require named`);
  }
}

/** The PE header of a Windows executable: machine type, PE32+, and the blob `node --build-sea` put in. */
function checkWindowsExecutable(bytes) {
  assert(bytes.toString('latin1', 0, 2) === 'MZ', 'no MZ header');
  const pe = bytes.readUInt32LE(0x3c);
  assert(bytes.toString('latin1', pe, pe + 4) === 'PE\0\0', 'no PE signature');
  assert(bytes.readUInt16LE(pe + 4) === 0x8664, `machine 0x${bytes.readUInt16LE(pe + 4).toString(16)}, not x86-64`);
  assert(bytes.readUInt16LE(pe + 24) === 0x20b, 'not PE32+');
  // The injector adds the blob as a resource named NODE_SEA_BLOB (UTF-16 in the resource directory),
  // and flips the fuse from :0 to :1.
  assert(bytes.includes(Buffer.from('NODE_SEA_BLOB', 'utf16le')), 'no NODE_SEA_BLOB resource: the CLI was not injected');
  assert(bytes.includes('NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1'), 'the SEA fuse is not flipped');
  assert(bytes.includes(`v${NODE_VERSION}\0`), `not Node v${NODE_VERSION}`);
}

/** Unpacks an archive into `into` and checks it holds exactly what release.md lists. */
async function unpack(work, file, into) {
  await mkdir(into, { recursive: true });
  if (file.endsWith('.zip')) succeeds('unzip', runToFiles(work, 'unzip', ['-q', file, '-d', into]));
  else succeeds('tar', runToFiles(work, 'tar', ['-xzf', file, '-C', into]));
  const [folder, ...others] = await readdir(into);
  assert(others.length === 0, `${basename(file)} holds more than one folder`);
  const root = join(into, folder);
  const exe = file.endsWith('.zip') ? 'rfs.exe' : 'rfs';
  const listed = (await readdir(root, { recursive: true })).sort();
  const expected = [
    exe,
    'LICENSE',
    'README.md',
    'completions',
    'completions/_rfs',
    'completions/rfs.bash',
    'completions/rfs.fish',
    'man',
    'man/rfs.1',
  ].sort();
  assert(JSON.stringify(listed) === JSON.stringify(expected), `${basename(file)} holds ${listed.join(', ')}`);
  checkShippedReadme(await readFile(join(root, 'README.md'), 'utf8'), basename(file));
  return join(root, exe);
}

/** The targets of a Markdown text's relative links (inline and reference-style). */
function relativeLinks(markdown) {
  const targets = [
    ...[...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]),
    ...[...markdown.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm)].map((m) => m[1]),
  ];
  return targets.filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target));
}

/**
 * A README a release ships: the repository's, with every link absolute to the release's tag
 * (none of the artifacts carries docs/), and each of those links a file of the repository.
 */
function checkShippedReadme(text, where) {
  const relative = relativeLinks(text);
  assert(relative.length === 0, `${where}: the README links ${relative.join(', ')}, which it does not ship`);
  const expected = shippedReadme(pkg, readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert(text === expected, `${where}: the README is not the repository's with absolute links`);
  const prefix = new RegExp(
    `^${pkg.repository.url
      .replace(/^git\+/, '')
      .replace(/\.git$/, '')
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|raw)/v${version.replace(/\./g, '\\.')}/`,
  );
  let linked = 0;
  for (const [, target] of text.matchAll(/\]\((\S+?)\)/g)) {
    if (!prefix.test(target)) continue;
    linked += 1;
    const path = target.replace(prefix, '').replace(/#.*$/, '');
    assert(existsSync(join(ROOT, path)), `${where}: the README links ${path}, which the repository does not have`);
  }
  assert(linked > 0, `${where}: the README links no file of the repository at v${version}: the check proves nothing`);
}

/** Unpacks `file` (a .rpm) into `root` as rpm2cpio | cpio does, keeping modes. */
function unpackRpm(file, root) {
  const unpacked = spawnSync('sh', ['-c', 'rpm2cpio "$1" | cpio -idm --quiet --no-absolute-filenames', 'sh', file], {
    cwd: root,
    encoding: 'utf8',
  });
  assert(unpacked.status === 0, `rpm2cpio | cpio exited ${unpacked.status}: ${unpacked.stderr}`);
}

/** The package's dependencies must be what readelf -d says the executable needs. */
function checkDependencies(label, declared, expected, exe) {
  const needed = neededLibraries(exe);
  assert(
    needed.includes('libatomic.so.1'),
    `${label}: readelf -d lists no libatomic.so.1 (${needed.join(', ')}): the check proves less than it says`,
  );
  assert(
    JSON.stringify([...declared].sort()) === JSON.stringify([...expected].sort()),
    `${label}: the package declares\n  ${declared.join(', ')}\nbut readelf -d of its executable (${needed.join(', ')}) gives\n  ${expected.join(', ')}`,
  );
}

/** The Homebrew formula: Ruby that parses, each URL the release's download of an archive it has, with its checksum. */
async function checkFormula(work, sums) {
  const file = join(dir, FORMULA);
  const syntax = succeeds('ruby -c', runToFiles(work, 'ruby', ['-c', file]));
  assert(syntax.stdout.trim() === 'Syntax OK', `ruby -c said ${syntax.stdout}${syntax.stderr}`);
  const formula = await readFile(file, 'utf8');
  assert(formula.includes('class RfsCli < Formula'), `${FORMULA} does not define RfsCli, the class Homebrew looks for`);
  const pairs = [...formula.matchAll(/url "([^"]+)"\s+sha256 "([0-9a-f]{64})"/g)].map((m) => [m[1], m[2]]);
  const expected = ['linux-x64', 'linux-arm64', 'darwin-x64'].map((p) => archiveName(version, p)).sort();
  assert(
    JSON.stringify(pairs.map(([url]) => basename(url)).sort()) === JSON.stringify(expected),
    `the formula names ${pairs.map(([url]) => url).join(', ')}`,
  );
  for (const [url, hash] of pairs) {
    const name = basename(url);
    assert(url === downloadUrl(pkg, version, name), `the formula's URL ${url} is not the release's download of ${name}`);
    assert(sums.get(name) === hash, `the formula's sha256 of ${name} is not SHA256SUMS's`);
  }
  assert(formula.includes(`version "${version}"`), 'the formula names another version');
}

/** Every SBOM of the release: valid CycloneDX, and each executable's and the image's naming its Node. */
async function checkSboms(sums, files) {
  const validate = cyclonedxValidator();
  const sboms = [sbomName(pkg), ...TARGETS.map((t) => executableSbomName(version, t.platform)), imageSbomName(version)];
  const extra = files.filter((f) => f.endsWith('.cdx.json') && !sboms.includes(f));
  assert(extra.length === 0, `SBOMs nobody checks: ${extra.join(', ')}`);
  for (const name of sboms) {
    const bom = JSON.parse(await readFile(join(dir, name), 'utf8'));
    const errors = validate(bom);
    assert(errors.length === 0, `${name} is not valid CycloneDX ${bom.specVersion}:\n${errors.slice(0, 10).join('\n')}`);
    if (name === sbomName(pkg)) continue;
    const nodes = bom.components.filter((c) => c.name === 'node');
    assert(
      nodes.length > 0 && nodes.every((c) => c.version === NODE_VERSION),
      `${name} names Node ${nodes.map((c) => c.version).join(', ') || 'nowhere'}, not ${NODE_VERSION}`,
    );
    assert(
      bom.components.some((c) => c.name === pkg.name && c.version === version),
      `${name} does not name ${pkg.name} ${version}`,
    );
  }
  // The image's SBOM is of this image, and each executable's of the file in its archive.
  const image = JSON.parse(await readFile(join(dir, imageSbomName(version)), 'utf8'));
  assert(image.metadata.component.hashes[0].content === sums.get(imageName(version)), "the image's SBOM is of another image");
  assert(
    image.components.some((c) => c.purl?.startsWith('pkg:deb/debian/libatomic1@')),
    "the image's SBOM names no libatomic1",
  );
  return { validate, executable: (platform) => JSON.parse(readFileSync(join(dir, executableSbomName(version, platform)), 'utf8')) };
}

/**
 * SHA256SUMS.minisig: minisign -V with the repository's public key when the release key signed,
 * else with the throwaway key the release left (and said so); a changed SHA256SUMS fails.
 */
async function checkSignature(work) {
  const signature = await readFile(join(dir, SIGNATURE), 'utf8');
  const signed = Buffer.from(signature.trim().split('\n')[1], 'base64').subarray(2, 10).reverse().toString('hex').toUpperCase();
  const repositoryKey = join(ROOT, PUBLIC_KEY);
  const release = keyId(keyLine(await readFile(repositoryKey, 'utf8')));
  const throwaway = throwawayPublicKey(dir);
  const publicKey = signed === release ? repositoryKey : throwaway;
  assert(
    signed === release || existsSync(throwaway),
    `${SIGNATURE} is signed by ${signed}: neither the release key ${release} nor a throwaway key of this build`,
  );
  const comment = verify(join(dir, 'SHA256SUMS'), join(dir, SIGNATURE), publicKey);
  const revision = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  assert(comment.startsWith(`rfs ${version} SHA256SUMS, commit `), `the trusted comment is "${comment}"`);
  if (!comment.includes(revision))
    process.stdout.write(`        (signed at commit ${comment.split('commit ')[1]}, this clone is at ${revision})\n`);
  const notes = await readFile(join(dir, 'RELEASE-NOTES.md'), 'utf8');
  assert(
    notes.includes(signed === release ? `release key ${release}` : `throwaway key ${signed}`),
    'RELEASE-NOTES.md does not name the key that signed',
  );
  const line = keyLine(await readFile(publicKey, 'utf8'));
  assert(notes.includes(`minisign -Vm SHA256SUMS -P ${line}`), 'RELEASE-NOTES.md does not show the public key that verifies the signature');
  // The same signature over a changed SHA256SUMS must not verify.
  const changed = join(work, 'SHA256SUMS.changed');
  await writeFile(
    changed,
    (await readFile(join(dir, 'SHA256SUMS'), 'utf8')).replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
  );
  let refused = false;
  try {
    verify(changed, join(dir, SIGNATURE), publicKey);
  } catch {
    refused = true;
  }
  assert(refused, 'minisign -V accepted a changed SHA256SUMS');
  return signed === release ? `the release key ${release}` : `a throwaway key ${signed} (not publishable)`;
}

/** The Mach-O header and load commands of a 64-bit little-endian executable. */
function machO(buffer) {
  const magic = buffer.readUInt32LE(0);
  const cputype = buffer.readUInt32LE(4);
  const filetype = buffer.readUInt32LE(12);
  const ncmds = buffer.readUInt32LE(16);
  const commands = [];
  let offset = 32; // mach_header_64
  for (let i = 0; i < ncmds; i += 1) {
    const cmd = buffer.readUInt32LE(offset);
    const size = buffer.readUInt32LE(offset + 4);
    // LC_SEGMENT_64 names its segment in the 16 bytes after cmd and cmdsize.
    const segment = cmd === 0x19 ? buffer.toString('latin1', offset + 8, offset + 24).replace(/\0+$/, '') : undefined;
    commands.push({ cmd, segment });
    offset += size;
  }
  return { magic, cputype, filetype, commands };
}

/** `skopeo <args>` on the image archive; its stdout as JSON. */
function skopeo(work, args) {
  return JSON.parse(succeeds(`skopeo ${args.join(' ')}`, runToFiles(work, 'skopeo', args)).stdout);
}

/**
 * The image's root file system of `architecture`, unpacked as a container runtime would: skopeo
 * picks the platform's manifest from the archive and copies it to a layout of its own, whose one
 * layer tar unpacks (as root, keeping owners) into `rootfs`.
 */
async function unpackImage(work, file, architecture, rootfs) {
  const layout = join(work, `image-${architecture}`);
  succeeds(
    'skopeo copy',
    runToFiles(work, 'skopeo', ['copy', '--quiet', '--override-arch', architecture, `oci-archive:${file}:${version}`, `oci:${layout}:rfs`]),
  );
  const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8'));
  const blobPath = (digest) => join(layout, 'blobs', ...digest.split(':'));
  const manifest = JSON.parse(await readFile(blobPath(index.manifests[0].digest), 'utf8'));
  assert(manifest.layers.length === 1, `${manifest.layers.length} layers`);
  await mkdir(rootfs, { recursive: true });
  succeeds('tar -x the layer', runToFiles(work, 'tar', ['-xzf', blobPath(manifest.layers[0].digest), '-C', rootfs, '--same-owner']));
}

/**
 * The image as umoci reads it (the fleet's part of the check, docs/kubernetes.md): the archive
 * unpacked to a layout, each platform unpacked by its name `<version>-<architecture>` (the
 * version names both, which umoci calls ambiguous), with this release's executable as /usr/bin/rfs
 * and the image's entrypoint in the bundle's config.
 */
async function checkImageWithUmoci(work, file, executables) {
  const layout = join(work, 'umoci-layout');
  await mkdir(layout, { recursive: true });
  succeeds('tar -x the image archive', runToFiles(work, 'tar', ['-xf', file, '-C', layout]));
  for (const { architecture, platform } of IMAGE_PLATFORMS) {
    const bundle = join(work, `umoci-${architecture}`);
    succeeds(
      `umoci unpack ${architecture}`,
      runToFiles(work, 'umoci', ['unpack', '--image', `${layout}:${platformTag(version, architecture)}`, bundle]),
    );
    const config = JSON.parse(await readFile(join(bundle, 'config.json'), 'utf8'));
    assert(
      JSON.stringify(config.process.args.slice(0, ENTRYPOINT.length)) === JSON.stringify(ENTRYPOINT),
      `${architecture}: umoci's args ${config.process.args}`,
    );
    const [inImage, released] = await Promise.all([readFile(join(bundle, 'rootfs', RFS_PATH.slice(1))), readFile(executables[platform])]);
    assert(inImage.equals(released), `${architecture}: /usr/bin/rfs is not the release's ${platform} executable`);
  }
}

/**
 * The fleet of the example workspace list (three workspaces, one of them a CronJob): generated,
 * rendered by kubectl kustomize, validated, each workspace's workload on this version's image.
 */
function checkFleet() {
  const objects = renderFleet();
  validate(objects);
  const workloads = objects.filter((o) => o.kind === 'StatefulSet' || o.kind === 'CronJob');
  assert(workloads.length === 3, `${workloads.length} workloads, not 3`);
  for (const workload of workloads) {
    const pod = workload.kind === 'CronJob' ? workload.spec.jobTemplate.spec.template.spec : workload.spec.template.spec;
    assert(pod.containers[0].image.endsWith(`:${version}`), `${workload.metadata.name}: the image is ${pod.containers[0].image}`);
  }
}

/** Every path of a tree, relative, with its lstat. */
async function tree(dir) {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((path) => ({ path, stat: lstatSync(join(dir, path)) }));
}

/** What the image may hold: rfs, /bin/sh as dash, shared libraries; nothing that builds or installs. */
async function checkImageContents(rootfs) {
  const entries = await tree(rootfs);
  const executables = entries
    .filter(({ path, stat }) => stat.isFile() && (stat.mode & 0o111) !== 0 && !/\.so(\.\d+)*$/.test(path))
    .map(({ path }) => path)
    .sort();
  assert(
    JSON.stringify(executables) === JSON.stringify(['bin/dash', 'usr/bin/rfs', 'usr/bin/tini']),
    `executables: ${executables.join(', ')}`,
  );
  assert(readlinkSync(join(rootfs, 'bin/sh')) === 'dash', '/bin/sh is not dash');
  const forbidden = /(^|\/)(apt|apt-get|dpkg|gcc|cc|c\+\+|g\+\+|ld|as|make|bash|busybox|perl|python3?|su|sudo)$/;
  const found = entries.filter(({ path }) => forbidden.test(path)).map(({ path }) => path);
  assert(found.length === 0, `the image holds ${found.join(', ')}`);
  const volume = lstatSync(join(rootfs, VOLUME.slice(1)));
  assert(volume.uid === IMAGE_USER && volume.gid === IMAGE_USER, `${VOLUME} is owned by ${volume.uid}:${volume.gid}`);
  const rfs = lstatSync(join(rootfs, 'usr/bin/rfs'));
  assert(rfs.uid === 0, '/usr/bin/rfs is not owned by root');
  return entries.length;
}

/**
 * In a chroot of `rootfs` as the image's user, with the image's environment: `rfs --version`,
 * then one `rfs sync` pass that files `count` recordings of the sandbox with a command the
 * image's /bin/sh runs. `prefix` runs the executable (qemu-user for arm64).
 */
async function runInChroot(work, rootfs, config, sandbox, prefix) {
  const env = { ...Object.fromEntries(config.config.Env.map((pair) => pair.split(/=(.*)/s).slice(0, 2))) };
  // Under qemu-user the init could not start rfs (an arm64 exec without binfmt_misc): rfs alone.
  const entrypoint = prefix.length > 0 ? [RFS_PATH] : config.config.Entrypoint;
  const chroot = (args, extra = {}) =>
    runToFiles(work, CHROOT, [`--userspec=${config.config.User}`, rootfs, ...prefix, ...entrypoint, ...args], {
      env: { ...env, NO_COLOR: '1', ...extra },
      cwd: work,
    });
  const ran = succeeds('rfs --version in the chroot', chroot(['--version']));
  // rfs, its libraries and its loader are the image's own: nothing of this machine is reachable.
  assert(ran.stdout === `${version}\n`, `rfs --version printed ${JSON.stringify(ran.stdout)}`);
  const verbose = succeeds('rfs --version --verbose in the chroot', chroot(['--version', '--verbose'])).stdout;
  assert(verbose.includes(`\nnode:      v${NODE_VERSION}\n`), `--version --verbose:\n${verbose}`);

  const synced = () =>
    JSON.parse(
      succeeds(
        'recordings list --sync-state synced',
        runToFiles(
          work,
          process.execPath,
          [join(ROOT, 'bin', 'rfs.js'), 'recordings', 'list', '--sync-state', 'synced', '--all', '-o', 'json'],
          {
            env: {
              ...process.env,
              NO_COLOR: '1',
              RFS_CONFIG_DIR: join(work, 'ref-config'),
              RFS_BASE_URL: sandbox.baseUrl,
              RFS_API_KEY: sandbox.apiKeys.admin,
            },
          },
        ),
      ).stdout,
    ).length;
  const before = synced();
  if (prefix.length > 0) {
    // Under qemu-user without binfmt_misc, rfs runs but cannot start the arm64 /bin/sh that
    // `sync --exec` needs (the kernel answers ENOEXEC): the pass is a --dry-run here, which
    // lists and fetches from the sandbox as a real pass does and runs no command. The full pass
    // is the amd64 image's, the same files but for the architecture.
    const dry = chroot(['sync', '--exec', 'echo "crm-$RFS_RECORDING_ID"', '--provider', 'crm', '--max-items', '3', '--dry-run'], {
      RFS_BASE_URL: sandbox.baseUrl,
      RFS_API_KEY: sandbox.apiKeys.admin,
    });
    assert(dry.code === 0, `rfs sync --dry-run in the chroot exited ${dry.code ?? dry.signal}: ${dry.stderr.slice(0, 1500)}`);
    assert(synced() === before, 'a --dry-run filed recordings');
    return;
  }
  const count = 3;
  const sync = chroot(['sync', '--exec', 'echo "crm-$RFS_RECORDING_ID"', '--provider', 'crm', '--max-items', String(count)], {
    RFS_BASE_URL: sandbox.baseUrl,
    RFS_API_KEY: sandbox.apiKeys.admin,
  });
  assert(
    sync.code === 0,
    `rfs sync in the chroot exited ${sync.code ?? sync.signal}: ${sync.stderr.slice(0, 1500)}${sync.stdout.slice(0, 500)}`,
  );
  const after = synced();
  assert(after - before === count, `the sync pass filed ${after - before} recordings, not ${count}:\n${sync.stdout}`);
  const journal = join(rootfs, env.XDG_STATE_HOME.slice(1), 'rfs', 'sync-default.jsonl');
  assert(existsSync(journal), `no journal at ${env.XDG_STATE_HOME}/rfs/sync-default.jsonl`);
  assert(lstatSync(journal).uid === IMAGE_USER, "the journal is not the image user's");
}

async function main() {
  const started = Date.now();
  const work = await mkdtemp(join(tmpdir(), 'rfs-release-check-'));
  // Every file, with the tap's and the bucket's folders (Formula/, bucket/).
  const files = (
    await readdir(dir, { recursive: true }).catch(() => {
      throw new Error(`${dir} does not exist: run npm run release first`);
    })
  ).filter((path) => lstatSync(join(dir, path)).isFile());
  process.stdout.write(`checking ${dir}\n`);
  let sandbox;
  try {
    sandbox = await startSandbox();
    const env = { ...process.env, NO_COLOR: '1', RFS_CONFIG_DIR: join(work, 'ref-config') };
    const reference = succeeds(
      'the repository build',
      runToFiles(work, process.execPath, [join(ROOT, 'bin', 'rfs.js'), 'recordings', 'list', '-o', 'json', '--limit', '5'], {
        env: { ...env, RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.readOnly },
      }),
    ).stdout;
    assert(JSON.parse(reference).length === 5, 'the sandbox listed no recordings');

    const launchers = {
      'linux-x64': (exe) => (args) => [exe, ...args],
      'linux-arm64': (exe) => (args) => ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu', exe, ...args],
    };
    for (const platform of Object.keys(launchers)) {
      await check(`${platform}: the archive, --version, recordings list from the sandbox, verify-signature`, async () => {
        const exe = await unpack(work, join(dir, archiveName(version, platform)), join(work, `archive-${platform}`));
        await checkExecutable(work, platform, launchers[platform](exe), sandbox, reference);
      });
    }

    await check('linux-x64: NODE_OPTIONS is not read (a planted --require file does not run)', async () => {
      await checkNodeOptionsIgnored(work, join(work, 'archive-linux-x64', `rfs-${version}-linux-x64`, 'rfs'));
    });

    await check(`win-x64: the archive, a PE32+ x86-64 executable of Node ${NODE_VERSION} with the CLI injected`, async () => {
      const exe = await unpack(work, join(dir, archiveName(version, 'win-x64')), join(work, 'archive-win-x64'));
      checkWindowsExecutable(await readFile(exe));
      const notes = await readFile(join(dir, 'RELEASE-NOTES.md'), 'utf8');
      assert(notes.includes(WINE_NODE_26), 'RELEASE-NOTES.md does not say why the Windows executable is not run here');
    });

    await check('darwin-x64: the archive, a Mach-O x86_64 executable with the blob, unsigned', async () => {
      const exe = await unpack(work, join(dir, archiveName(version, 'darwin-x64')), join(work, 'archive-darwin-x64'));
      const bytes = await readFile(exe);
      assert(bytes.includes(`v${NODE_VERSION}\0`), `not Node v${NODE_VERSION}`);
      const header = machO(bytes);
      assert(header.magic === 0xfeedfacf, `magic 0x${header.magic.toString(16)}, not MH_MAGIC_64`);
      assert(header.cputype === 0x01000007, `CPU type 0x${header.cputype.toString(16)}, not CPU_TYPE_X86_64`);
      assert(header.filetype === 2, `file type ${header.filetype}, not MH_EXECUTE`);
      assert(
        header.commands.some((c) => c.segment === 'NODE_SEA'),
        'no NODE_SEA segment: the CLI was not injected',
      );
      // Node's signature was removed before the injection, and none made after: none at all,
      // rather than one that no longer matches the file.
      assert(!header.commands.some((c) => c.cmd === 0x1d), 'LC_CODE_SIGNATURE present: a stale signature');
    });

    await check('darwin-arm64: not shipped, and the release notes say why', async () => {
      assert(
        !files.some((file) => file.includes('darwin-arm64')),
        `shipped: ${files.filter((f) => f.includes('darwin-arm64')).join(', ')}`,
      );
      const notes = await readFile(join(dir, 'RELEASE-NOTES.md'), 'utf8');
      assert(notes.includes(MACOS_ARM64), 'RELEASE-NOTES.md does not say why there is no macOS arm64 executable');
    });

    for (const target of TARGETS.filter((t) => t.deb !== undefined)) {
      const { deb: arch, platform } = target;
      await check(`${debName(version, arch)}: info, contents, installed into a root of its own, run, man`, async () => {
        const file = join(dir, debName(version, arch));
        const info = succeeds('dpkg-deb --info', runToFiles(work, 'dpkg-deb', ['--info', file])).stdout;
        for (const field of ['Package: rfs', `Version: ${debVersion(version)}`, `Architecture: ${arch}`]) {
          assert(info.includes(` ${field}\n`), `dpkg-deb --info lacks "${field}"`);
        }
        const contents = succeeds('dpkg-deb --contents', runToFiles(work, 'dpkg-deb', ['--contents', file])).stdout;
        const paths = [
          './usr/bin/rfs',
          './usr/share/man/man1/rfs.1.gz',
          './usr/share/bash-completion/completions/rfs',
          './usr/share/zsh/vendor-completions/_rfs',
          './usr/share/fish/vendor_completions.d/rfs.fish',
          './usr/share/doc/rfs/copyright',
          './usr/share/doc/rfs/README.md.gz',
          './usr/share/doc/rfs/changelog.gz',
        ];
        for (const path of paths) assert(contents.includes(` ${path}\n`), `the package lacks ${path}`);

        // dpkg's own install, into an empty root with a database of its own. Its dependencies
        // (libc6, libstdc++6) are the host's, so they are not looked for in that root.
        const root = join(work, `root-${arch}`);
        await mkdir(join(root, 'var/lib/dpkg/info'), { recursive: true });
        await mkdir(join(root, 'var/lib/dpkg/updates'), { recursive: true });
        await writeFile(join(root, 'var/lib/dpkg/status'), '');
        await writeFile(join(root, 'var/lib/dpkg/available'), '');
        const force = ['--force-depends', ...(platform === 'linux-x64' ? [] : ['--force-architecture'])];
        succeeds('dpkg --root -i', runToFiles(work, 'dpkg', [`--root=${root}`, ...force, '-i', file]));
        const status = succeeds('dpkg -s', runToFiles(work, 'dpkg', [`--root=${root}`, '-s', 'rfs'])).stdout;
        assert(status.includes('Status: install ok installed'), `dpkg says: ${status}`);

        // The documentation Debian packages carry: the README and the changelog, gzipped.
        const doc = join(root, 'usr/share/doc/rfs');
        const shipped = succeeds('zcat README.md.gz', runToFiles(work, 'zcat', [join(doc, 'README.md.gz')])).stdout;
        checkShippedReadme(shipped, `${debName(version, arch)}: README.md.gz`);
        const changelog = succeeds('zcat changelog.gz', runToFiles(work, 'zcat', [join(doc, 'changelog.gz')])).stdout;
        assert(changelog.includes(`## [${version}]`), `changelog.gz has no entry for ${version}`);

        const exe = join(root, 'usr/bin/rfs');
        const depends = succeeds('dpkg-deb --field Depends', runToFiles(work, 'dpkg-deb', ['--field', file, 'Depends'])).stdout.trim();
        checkDependencies(debName(version, arch), depends.split(/,\s*/), debDepends(exe), exe);
        const launch = launchers[platform](exe);
        const [bin, ...args] = launch(['--version']);
        const ran = succeeds('/usr/bin/rfs --version', runToFiles(work, bin, args));
        assert(ran.stdout === `${version}\n`, `/usr/bin/rfs --version printed ${JSON.stringify(ran.stdout)}`);

        const manEnv = { ...process.env, MANPATH: join(root, 'usr/share/man'), MANPAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' };
        const where = succeeds('man -w rfs', runToFiles(work, 'man', ['-w', 'rfs'], { env: manEnv })).stdout.trim();
        assert(where === join(root, 'usr/share/man/man1/rfs.1.gz'), `man -w rfs found ${where}`);
        const page = succeeds('man rfs', runToFiles(work, 'man', ['rfs'], { env: manEnv })).stdout;
        assert(/^RFS\(1\)/m.test(page) && page.includes('NAME'), `man rfs printed ${page.slice(0, 200)}`);

        // bash-completion loads the file by the command's name; it must define rfs's completion.
        const bash = runToFiles(work, 'bash', [
          '-c',
          `source ${join(root, 'usr/share/bash-completion/completions/rfs')} && complete -p rfs`,
        ]);
        assert(bash.code === 0 && bash.stdout.includes(' rfs\n'), `the bash completion defines nothing for rfs: ${bash.stderr}`);
      });
    }

    for (const target of TARGETS.filter((t) => t.rpm !== undefined)) {
      const { rpm: arch, platform } = target;
      const name = rpmName(version, arch);
      await check(`${name}: rpm -qip, -qpR (= readelf -d), -qpl, unpacked (rpm2cpio | cpio) into a root of its own, run, man`, async () => {
        const file = join(dir, name);
        const info = succeeds('rpm -qip', runToFiles(work, 'rpm', ['-qip', file])).stdout;
        const { version: rpmV, release } = rpmVersion(version);
        for (const [field, value] of [
          ['Name', 'rfs'],
          ['Version', rpmV],
          ['Release', release],
          ['Architecture', arch],
          ['License', pkg.license],
        ]) {
          assert(
            new RegExp(`^${field}\\s*: ${value.replace(/[.~+]/g, '\\$&')}$`, 'm').test(info),
            `rpm -qip lacks "${field}: ${value}":\n${info}`,
          );
        }
        const listed = succeeds('rpm -qpl', runToFiles(work, 'rpm', ['-qpl', file]))
          .stdout.trim()
          .split('\n')
          .sort();
        const expected = [
          '/usr/bin/rfs',
          '/usr/share/bash-completion/completions/rfs',
          '/usr/share/doc/rfs/CHANGELOG.md',
          '/usr/share/doc/rfs/README.md',
          '/usr/share/fish/vendor_completions.d/rfs.fish',
          '/usr/share/licenses/rfs/LICENSE',
          '/usr/share/man/man1/rfs.1.gz',
          '/usr/share/zsh/site-functions/_rfs',
        ];
        assert(JSON.stringify(listed) === JSON.stringify(expected), `rpm -qpl lists\n${listed.join('\n')}`);

        const root = join(work, `rpm-root-${arch}`);
        await mkdir(root, { recursive: true });
        unpackRpm(file, root);
        const exe = join(root, 'usr/bin/rfs');
        assert((lstatSync(exe).mode & 0o755) === 0o755, '/usr/bin/rfs is not executable');
        // rpm's own Requires, without rpmlib()'s features of the package format.
        const requires = succeeds('rpm -qpR', runToFiles(work, 'rpm', ['-qpR', file]))
          .stdout.trim()
          .split('\n')
          .filter((line) => !line.startsWith('rpmlib('));
        checkDependencies(name, requires, rpmRequires(exe), exe);

        const [bin, ...args] = launchers[platform](exe)(['--version']);
        const ran = succeeds('/usr/bin/rfs --version', runToFiles(work, bin, args));
        assert(ran.stdout === `${version}\n`, `/usr/bin/rfs --version printed ${JSON.stringify(ran.stdout)}`);
        const manEnv = { ...process.env, MANPATH: join(root, 'usr/share/man'), MANPAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' };
        const where = succeeds('man -w rfs', runToFiles(work, 'man', ['-w', 'rfs'], { env: manEnv })).stdout.trim();
        assert(where === join(root, 'usr/share/man/man1/rfs.1.gz'), `man -w rfs found ${where}`);
        checkShippedReadme(await readFile(join(root, 'usr/share/doc/rfs/README.md'), 'utf8'), `${name}: README.md`);
        const changelog = await readFile(join(root, 'usr/share/doc/rfs/CHANGELOG.md'), 'utf8');
        assert(changelog.includes(`## [${version}]`), `CHANGELOG.md has no entry for ${version}`);
        const zsh = runToFiles(work, 'zsh', [
          '-f',
          '-c',
          `fpath=(${join(root, 'usr/share/zsh/site-functions')} $fpath); autoload -Uz compinit && compinit -u -D && print -r -- $_comps[rfs]`,
        ]);
        assert(
          zsh.code === 0 && zsh.stdout.trim() === '_rfs',
          `zsh finds no completion for rfs in site-functions: ${zsh.stdout}${zsh.stderr}`,
        );
      });
    }

    const sums = new Map();
    await check('SHA256SUMS: sha256sum -c, and it lists every artifact', async () => {
      succeeds('sha256sum -c', runToFiles(work, 'sha256sum', ['--strict', '-c', 'SHA256SUMS'], { cwd: dir }));
      for (const line of (await readFile(join(dir, 'SHA256SUMS'), 'utf8')).trim().split('\n')) {
        const [hash, file] = line.split(/ [ *]/);
        sums.set(file, hash);
      }
      const unlisted = files.filter((file) => file !== 'SHA256SUMS' && file !== SIGNATURE && !sums.has(file));
      assert(unlisted.length === 0, `not in SHA256SUMS: ${unlisted.join(', ')}`);
    });

    await check(`${SIGNATURE}: minisign -V verifies SHA256SUMS, and refuses it changed`, async () => {
      const by = await checkSignature(work);
      process.stdout.write(`        signed by ${by}\n`);
    });

    await check(
      "the SBOMs: valid CycloneDX (the schema of @cyclonedx/cyclonedx-library, ajv), Node named in each executable's and the image's",
      async () => {
        const { executable } = await checkSboms(sums, files);
        for (const target of TARGETS) {
          const bom = executable(target.platform);
          // The executable as its archive's check unpacked it, or unpacked again.
          const earlier = join(
            work,
            `archive-${target.platform}`,
            `rfs-${version}-${target.platform}`,
            target.platform.startsWith('win-') ? 'rfs.exe' : 'rfs',
          );
          const exe = existsSync(earlier)
            ? earlier
            : await unpack(work, join(dir, archiveName(version, target.platform)), join(work, `sbom-${target.platform}`));
          const hash = createHash('sha256')
            .update(await readFile(exe))
            .digest('hex');
          assert(
            bom.metadata.component.hashes[0].content === hash,
            `${executableSbomName(version, target.platform)} is of another executable`,
          );
          const node = bom.components.find((c) => c.name === 'node');
          assert(node.purl === `pkg:npm/${target.node}@${NODE_VERSION}`, `${target.platform}: Node's purl is ${node.purl}`);
        }
      },
    );

    await check(`the Homebrew formula (${FORMULA}: ruby -c, URLs, checksums) and the Scoop manifest (${SCOOP_MANIFEST})`, async () => {
      await checkFormula(work, sums);
      const manifest = JSON.parse(await readFile(join(dir, SCOOP_MANIFEST), 'utf8'));
      const windows = manifest.architecture['64bit'];
      assert(manifest.version === version, `the manifest is version ${manifest.version}`);
      assert(windows.url === downloadUrl(pkg, version, archiveName(version, 'win-x64')), `the manifest's URL is ${windows.url}`);
      assert(sums.get(basename(windows.url)) === windows.hash, "the manifest's hash is not SHA256SUMS's");
    });

    const tarball = join(dir, `${pkg.name}-${version}.tgz`);
    await check(`npm publish --dry-run (${pkg.name}), and the SBOM names it`, async () => {
      assert(pkg.name === 'rfs-cli', `package.json names ${pkg.name}`);
      succeeds('npm publish --dry-run', runToFiles(work, 'npm', ['publish', '--dry-run', tarball]));
      const sbom = JSON.parse(await readFile(join(dir, sbomName(pkg)), 'utf8'));
      const { component } = sbom.metadata;
      assert(component.name === pkg.name, `the SBOM names ${component.name}`);
      assert(component.purl === `pkg:npm/${pkg.name}@${version}`, `the SBOM's purl is ${component.purl}`);
    });

    await check('npm i -g into an empty prefix: no warning, rfs runs, man rfs works, npx', async () => {
      const prefix = join(work, 'prefix');
      await mkdir(prefix);
      const installed = succeeds(
        'npm i -g',
        runToFiles(work, 'npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: prefix }),
      );
      assert(installed.stderr === '', `npm i -g printed on stderr:\n${installed.stderr}`);
      checkShippedReadme(await readFile(join(prefix, 'lib', 'node_modules', pkg.name, 'README.md'), 'utf8'), `${pkg.name}-${version}.tgz`);
      const ran = succeeds('rfs --version', runToFiles(work, join(prefix, 'bin', 'rfs'), ['--version']));
      assert(ran.stdout === `${version}\n`, `rfs --version printed ${JSON.stringify(ran.stdout)}`);
      // man-db looks beside each PATH entry (<prefix>/bin → <prefix>/share/man).
      const manEnv = { PATH: `${join(prefix, 'bin')}:/usr/bin:/bin`, MANPAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' };
      const where = succeeds('man -w rfs', runToFiles(work, 'man', ['-w', 'rfs'], { env: manEnv, cwd: prefix })).stdout.trim();
      assert(where.startsWith(prefix), `man -w rfs found ${where}, not the prefix's page`);
      const page = succeeds('man rfs', runToFiles(work, 'man', ['rfs'], { env: manEnv, cwd: prefix })).stdout;
      assert(/^RFS\(1\)/m.test(page), `man rfs printed ${page.slice(0, 200)}`);
      const empty = join(work, 'npx');
      await mkdir(empty);
      const npx = succeeds(
        'npx',
        runToFiles(work, 'npm', ['exec', '--yes', `--package=${tarball}`, '--', 'rfs', '--version'], { cwd: empty }),
      );
      assert(npx.stdout === `${version}\n`, `npx rfs --version printed ${JSON.stringify(npx.stdout)}`);
    });

    await check('publint reports nothing', async () => {
      const { publint } = await import('publint');
      const { formatMessage } = await import('publint/utils');
      const bytes = await readFile(tarball);
      const packed = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const { messages, pkg: linted } = await publint({ pack: { tarball: packed }, level: 'suggestion' });
      const said = messages.map((m) => `${m.type}: ${formatMessage(m, linted, { color: false })}`);
      assert(messages.length === 0, `publint:\n${said.join('\n')}`);
    });

    await check(`@arethetypeswrong/cli passes for ${pkg.name}/sandbox (an ES module package)`, async () => {
      // engines allows Node 20.18, where require() of an ES module is not there yet: ESM only.
      const manifest = require.resolve('@arethetypeswrong/cli/package.json');
      const attw = join(dirname(manifest), JSON.parse(await readFile(manifest, 'utf8')).bin.attw);
      const args = [attw, tarball, '--entrypoints', './sandbox', '--profile', 'esm-only', '--format', 'ascii'];
      succeeds('attw', runToFiles(work, process.execPath, args));
    });

    const image = join(dir, imageName(version));
    const imageConfigs = {};
    await check('the OCI image: skopeo reads it, linux/amd64 and linux/arm64, user, entrypoint, volume, environment, labels', async () => {
      const index = skopeo(work, ['inspect', '--raw', `oci-archive:${image}:${version}`]);
      const platforms = index.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`).sort();
      assert(JSON.stringify(platforms) === JSON.stringify(['linux/amd64', 'linux/arm64']), `platforms: ${platforms.join(', ')}`);
      for (const { architecture } of IMAGE_PLATFORMS) {
        const config = skopeo(work, ['inspect', '--config', '--override-arch', architecture, `oci-archive:${image}:${version}`]);
        imageConfigs[architecture] = config;
        assert(
          config.architecture === architecture && config.os === 'linux',
          `${architecture}: the config says ${config.os}/${config.architecture}`,
        );
        const c = config.config;
        assert(c.User === `${IMAGE_USER}:${IMAGE_USER}`, `${architecture}: user ${c.User}`);
        assert(JSON.stringify(c.Entrypoint) === JSON.stringify(ENTRYPOINT), `${architecture}: entrypoint ${c.Entrypoint}`);
        assert(Object.keys(c.Volumes ?? {}).join() === VOLUME, `${architecture}: volumes ${Object.keys(c.Volumes ?? {})}`);
        for (const [name, value] of Object.entries(IMAGE_ENV))
          assert(c.Env.includes(`${name}=${value}`), `${architecture}: no ${name}=${value}`);
        const labels = c.Labels;
        assert(
          labels['org.opencontainers.image.version'] === version,
          `${architecture}: version label ${labels['org.opencontainers.image.version']}`,
        );
        assert(
          /^[0-9a-f]{40}$/.test(labels['org.opencontainers.image.revision']),
          `${architecture}: revision label ${labels['org.opencontainers.image.revision']}`,
        );
        assert(labels['org.opencontainers.image.licenses'] === pkg.license, `${architecture}: licence label`);
        assert(labels['org.opencontainers.image.source'].startsWith('https://'), `${architecture}: source label`);
      }
      const inspected = skopeo(work, ['inspect', '--override-arch', 'arm64', `oci-archive:${image}:${version}`]);
      assert(
        inspected.Architecture === 'arm64' && inspected.Labels['org.opencontainers.image.version'] === version,
        'skopeo inspect of arm64',
      );
    });

    for (const { architecture } of IMAGE_PLATFORMS) {
      await check(
        `the image, linux/${architecture}: unpacked, only rfs and /bin/sh; in a chroot as ${IMAGE_USER}, rfs --version and ${architecture === 'arm64' && process.arch !== 'arm64' ? 'a sync --dry-run pass (qemu-user)' : 'one sync pass that files'}`,
        async () => {
          const config = imageConfigs[architecture];
          assert(config !== undefined, 'the image could not be read');
          const rootfs = join(work, `rootfs-${architecture}`);
          await unpackImage(work, image, architecture, rootfs);
          await checkImageContents(rootfs);
          let prefix = [];
          if (architecture === 'arm64' && process.arch !== 'arm64') {
            // No binfmt_misc here: the static qemu-user goes into the unpacked copy (not the image).
            await copyFile('/usr/bin/qemu-aarch64-static', join(rootfs, 'qemu-aarch64-static'));
            await chmod(join(rootfs, 'qemu-aarch64-static'), 0o755);
            prefix = ['/qemu-aarch64-static'];
          }
          await runInChroot(work, rootfs, config, sandbox, prefix);
        },
      );
    }

    await check('the image, read by umoci: each platform unpacked by its name, with the release executable', async () => {
      const executables = Object.fromEntries(
        IMAGE_PLATFORMS.map(({ platform }) => [platform, join(work, `archive-${platform}`, `rfs-${version}-${platform}`, 'rfs')]),
      );
      await checkImageWithUmoci(work, image, executables);
    });

    await check(`the Kubernetes manifests: ${KUSTOMIZATIONS.join(', ')} rendered by kubectl kustomize, every object valid`, async () => {
      const rule = await readFile(PROMETHEUS_RULE, 'utf8');
      assert(rule === prometheusRule(), `${PROMETHEUS_RULE} is not the rules file: run node scripts/kubernetes.mjs prometheus-rule`);
      for (const kustomization of KUSTOMIZATIONS) {
        const objects = render(kustomization);
        validate(objects);
        for (const object of objects.filter((o) => o.kind === 'StatefulSet')) {
          const [container] = object.spec.template.spec.containers;
          assert(container.image.endsWith(`:${version}`), `${kustomization}: the image is ${container.image}, not version ${version}`);
        }
      }
    });

    await check(
      'the fleet: deploy/kubernetes/fleet/workspaces.yaml generated by scripts/fleet.mjs, rendered, every object valid',
      async () => {
        checkFleet();
      },
    );

    await check(`CHANGELOG.md has the entry of ${version}`, async () => {
      const changelog = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
      assert(
        new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d\\d-\\d\\d$`, 'm').test(changelog),
        `no "## [${version}] - YYYY-MM-DD"`,
      );
      assert((changelogEntry(changelog, version) ?? '') !== '', 'the entry is empty');
    });
  } finally {
    await sandbox?.stop();
    await rm(work, { recursive: true, force: true });
  }
  process.stdout.write(`release check of ${version} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  if (failed > 0) process.exitCode = 1;
}

await main();
