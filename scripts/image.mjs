// The OCI image of a release (../shared/spec/release.md, "A container image"): linux/amd64 and
// linux/arm64, written as an OCI image layout by this script and packed as one oci-archive, with
// no container daemon and no image tool (scripts/release.mjs calls buildImage()).
//
// Why a script rather than buildah or umoci: the image is one layer of files that are all known
// beforehand, and an OCI layout is three small JSON documents and that layer. Writing them takes
// GNU tar, gzip and a few lines here, runs unprivileged, and gives the same bytes for the same
// input (sorted entries, one date, numeric owners), which buildah (a daemonless builder still
// made for a user namespace and a storage driver) and umoci (one image per tag, no platform in
// the index) do not give as simply. skopeo and umoci read what it writes (release-check.mjs).
//
// What the image holds, and why (nothing else):
//   /usr/bin/rfs          the release's single executable of that architecture (entrypoint)
//   the shared libraries  Node's Linux binaries link glibc, libstdc++, libgcc_s and libatomic
//                         (readelf -d): taken from those Debian packages of that architecture,
//                         only the libraries, with their copyright files
//   /bin/sh (dash)        `rfs sync --exec` runs its command through /bin/sh (cli.md, sync): no
//                         sync without it. No other shell, no package manager, no compiler.
//   /usr/bin/tini         PID 1: it starts rfs, passes it its signals, and reaps the orphans a
//                         command leaves (`( sleep 1 & )`), which Node, as PID 1, never waits for
//                         (libuv waits only for the processes it started). Debian's tini links
//                         only glibc, already here: 28 KB, where catatonit and tini-static are
//                         700 KB each (docs/kubernetes.md, "PID 1"). `-s` makes it a subreaper
//                         too, so it reaps where it is not PID 1 (a pod sharing its PID namespace).
//   /etc/passwd, group    the non-root user rfs (65532) and root, for names; nsswitch.conf
//   /var/lib/rfs          the one volume: config (RFS_CONFIG_DIR) and the journal (XDG_STATE_HOME)
//   /tmp                  for rfs's temporary files (an emptyDir in Kubernetes)
// The Debian packages come from Debian's archive through apt-get download (the ordinary client),
// with package lists of their own under node_modules/.cache, so the host's apt state is not
// touched; they are Debian 12 (bookworm), the release machine's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The non-root user the image runs as. 65532 is the "nonroot" of distroless images. */
export const IMAGE_USER = 65532;
export const VOLUME = '/var/lib/rfs';
/** The environment of the image: the journal and the config on the volume. */
export const IMAGE_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: VOLUME,
  XDG_STATE_HOME: `${VOLUME}/state`,
  RFS_CONFIG_DIR: `${VOLUME}/config`,
};
/** The init that starts rfs and reaps what its commands leave (docs/kubernetes.md, "PID 1"). */
export const INIT = ['/usr/bin/tini', '-s', '--'];
export const RFS_PATH = '/usr/bin/rfs';
export const ENTRYPOINT = [...INIT, RFS_PATH];
/** The metrics port of `rfs sync --metrics` in deploy/kubernetes/. */
export const METRICS_PORT = 9464;

/** Per architecture: the release's platform, Debian's architecture and multiarch triplet. */
export const IMAGE_PLATFORMS = [
  { architecture: 'amd64', platform: 'linux-x64', triplet: 'x86_64-linux-gnu' },
  { architecture: 'arm64', platform: 'linux-arm64', triplet: 'aarch64-linux-gnu' },
];
/** The Debian packages the image takes files from, and the files (by name) it takes. */
const DEBIAN = ['libc6', 'libstdc++6', 'libgcc-s1', 'libatomic1', 'dash', 'tini'];
/** gcc-12-base holds the copyright that libstdc++6, libgcc-s1 and libatomic1 link their docs to. */
const DOCUMENTS_ONLY = ['gcc-12-base'];
const LIBRARIES = [
  'ld-linux-x86-64.so.2',
  'ld-linux-aarch64.so.1',
  'libc.so.6',
  'libm.so.6',
  'libdl.so.2',
  'libpthread.so.0',
  'libstdc++.so.6',
  'libgcc_s.so.1',
  'libatomic.so.1',
];

export const imageName = (version) => `rfs-${version}-oci.tar`;
/** The name of one platform's image in the layout: what `umoci unpack --image <layout>:<name>` takes. */
export const platformTag = (version, architecture) => `${version}-${architecture}`;

function run(file, args, options = {}) {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28, ...options });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error(`${file} ${args.join(' ')} failed (${error.status ?? error.signal})`);
  }
}

/** The .deb files of DEBIAN for `architecture`, downloaded once into the cache. */
async function debianPackages(architecture) {
  const cache = join(ROOT, 'node_modules', '.cache', 'rfs-release', 'debian');
  const apt = [
    '-q',
    '-o',
    `Dir::State::Lists=${join(cache, 'lists')}`,
    '-o',
    `Dir::Cache=${join(cache, 'apt-cache')}`,
    '-o',
    'Debug::NoLocking=1',
    '-o',
    'APT::Architectures::=amd64',
    '-o',
    'APT::Architectures::=arm64',
    // As root, apt hands downloads to the _apt user, which cannot write to this cache.
    '-o',
    'APT::Sandbox::User=root',
  ];
  const debs = join(cache, architecture);
  await mkdir(join(cache, 'lists', 'partial'), { recursive: true });
  await mkdir(join(cache, 'apt-cache', 'archives', 'partial'), { recursive: true });
  await mkdir(debs, { recursive: true });
  const have = () => readdir(debs).then((files) => files.filter((file) => file.endsWith('.deb')));
  const wanted = [...DEBIAN, ...DOCUMENTS_ONLY];
  if ((await have()).length < wanted.length) {
    if (!existsSync(join(cache, 'lists', 'lock')) || (await readdir(join(cache, 'lists'))).length < 3) {
      run('apt-get', [...apt, 'update']);
    }
    run('apt-get', [...apt, 'download', ...wanted.map((name) => `${name}:${architecture}`)], { cwd: debs });
  }
  const files = await have();
  for (const name of wanted) {
    if (!files.some((file) => file.startsWith(`${name}_`))) throw new Error(`no ${name}:${architecture} in ${debs}`);
  }
  return files.map((file) => join(debs, file));
}

/** Copies `path` (relative to `from`) into `to`, with the file a symbolic link names, in the same tree. */
async function take(from, to, path) {
  const source = join(from, path);
  await mkdir(dirname(join(to, path)), { recursive: true });
  const stat = lstatSync(source);
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(source);
    if (!existsSync(join(to, path))) await symlink(target, join(to, path));
    const resolved = target.startsWith('/') ? target.slice(1) : posix.join(posix.dirname(path), target);
    await take(from, to, posix.normalize(resolved));
  } else if (!existsSync(join(to, path))) {
    await copyFile(source, join(to, path));
    await chmod(join(to, path), stat.mode & 0o7777);
  }
}

/** usr/share/doc/<name>/copyright, through the link to another package's folder where it is one. */
async function takeCopyright(from, to, name) {
  const doc = `usr/share/doc/${name}`;
  if (lstatSync(join(from, doc)).isSymbolicLink()) {
    const target = readlinkSync(join(from, doc));
    await mkdir(join(to, 'usr', 'share', 'doc'), { recursive: true });
    if (!existsSync(join(to, doc))) await symlink(target, join(to, doc));
    return takeCopyright(from, to, posix.basename(target));
  }
  return take(from, to, `${doc}/copyright`);
}

/** Every path under `dir`, relative, files and links only. */
async function walk(dir, prefix = '') {
  const paths = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = posix.join(prefix, entry.name);
    if (entry.isDirectory()) paths.push(...(await walk(dir, path)));
    else paths.push(path);
  }
  return paths;
}

/** The root file system of one architecture in `stage`. */
async function rootFileSystem(work, { architecture }, exe, stage) {
  const unpacked = join(work, `debian-${architecture}`);
  await rm(unpacked, { recursive: true, force: true });
  await mkdir(unpacked, { recursive: true });
  const debs = await debianPackages(architecture);
  for (const deb of debs) run('dpkg-deb', ['-x', deb, unpacked]);
  const paths = await walk(unpacked);
  for (const name of LIBRARIES) {
    for (const path of paths.filter((p) => posix.basename(p) === name)) await take(unpacked, stage, path);
  }
  await take(unpacked, stage, 'bin/dash');
  await symlink('dash', join(stage, 'bin', 'sh'));
  await take(unpacked, stage, INIT[0].slice(1));
  for (const name of DEBIAN) await takeCopyright(unpacked, stage, name);

  await mkdir(join(stage, 'usr', 'bin'), { recursive: true });
  await copyFile(exe, join(stage, 'usr', 'bin', 'rfs'));
  await chmod(join(stage, 'usr', 'bin', 'rfs'), 0o755);
  await mkdir(join(stage, 'usr', 'share', 'doc', 'rfs'), { recursive: true });
  await copyFile(join(ROOT, 'LICENSE'), join(stage, 'usr', 'share', 'doc', 'rfs', 'copyright'));
  await mkdir(join(stage, 'etc'), { recursive: true });
  await writeFile(
    join(stage, 'etc', 'passwd'),
    `root:x:0:0:root:/root:/usr/sbin/nologin\nrfs:x:${IMAGE_USER}:${IMAGE_USER}:rfs:${VOLUME}:/usr/sbin/nologin\n`,
  );
  await writeFile(join(stage, 'etc', 'group'), `root:x:0:\nrfs:x:${IMAGE_USER}:\n`);
  await writeFile(join(stage, 'etc', 'nsswitch.conf'), 'passwd: files\ngroup: files\nhosts: files dns\n');
  await mkdir(join(stage, 'tmp'), { recursive: true });
  await chmod(join(stage, 'tmp'), 0o1777);
  await mkdir(join(stage, VOLUME.slice(1)), { recursive: true });
  await chmod(join(stage, VOLUME.slice(1)), 0o755);
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Writes `bytes` as a blob of the layout; returns its descriptor. */
async function blob(layout, mediaType, bytes, extra = {}) {
  const digest = sha256(bytes);
  await writeFile(join(layout, 'blobs', 'sha256', digest), bytes);
  return { mediaType, digest: `sha256:${digest}`, size: bytes.length, ...extra };
}

/**
 * The image of `version` for every IMAGE_PLATFORMS entry, from `executables` (platform → path),
 * as an oci-archive at `file`. `mtime` dates every file and the image; `labels` are the OCI
 * annotations (org.opencontainers.image.*).
 */
export async function buildImage({ work, executables, file, mtime, labels }) {
  const layout = join(work, 'oci-layout');
  await rm(layout, { recursive: true, force: true });
  await mkdir(join(layout, 'blobs', 'sha256'), { recursive: true });
  const epoch = Math.floor(mtime.getTime() / 1000);
  const created = mtime.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const manifests = [];
  for (const platform of IMAGE_PLATFORMS) {
    const stage = join(work, `rootfs-${platform.architecture}`);
    await rm(stage, { recursive: true, force: true });
    await mkdir(stage, { recursive: true });
    await rootFileSystem(work, platform, executables[platform.platform], stage);

    // One layer: everything owned by root, then the volume owned by the user. Sorted, one date,
    // numeric owners, no access or change times: the same files make the same bytes.
    const tarFile = join(work, `layer-${platform.architecture}.tar`);
    const common = [
      '--sort=name',
      `--mtime=@${epoch}`,
      '--numeric-owner',
      '--format=posix',
      '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
      '-C',
      stage,
    ];
    const top = (await readdir(stage)).sort();
    run('tar', ['--create', '--file', tarFile, '--owner=0', '--group=0', `--exclude=${VOLUME.slice(1)}`, ...common, ...top]);
    run('tar', ['--append', '--file', tarFile, `--owner=${IMAGE_USER}`, `--group=${IMAGE_USER}`, ...common, VOLUME.slice(1)]);
    const tar = await readFile(tarFile);
    run('gzip', ['-n', '-f', tarFile]);
    const layer = await blob(layout, 'application/vnd.oci.image.layer.v1.tar+gzip', await readFile(`${tarFile}.gz`));

    const config = {
      created,
      architecture: platform.architecture,
      os: 'linux',
      config: {
        User: `${IMAGE_USER}:${IMAGE_USER}`,
        Env: Object.entries(IMAGE_ENV).map(([name, value]) => `${name}=${value}`),
        Entrypoint: ENTRYPOINT,
        Cmd: ['--help'],
        WorkingDir: VOLUME,
        Volumes: { [VOLUME]: {} },
        ExposedPorts: { [`${METRICS_PORT}/tcp`]: {} },
        StopSignal: 'SIGTERM',
        Labels: labels,
      },
      rootfs: { type: 'layers', diff_ids: [`sha256:${sha256(tar)}`] },
      history: [{ created, created_by: 'scripts/image.mjs: the release executable, its shared libraries and /bin/sh' }],
    };
    const configBlob = await blob(layout, 'application/vnd.oci.image.config.v1+json', Buffer.from(JSON.stringify(config)));
    const manifest = {
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: configBlob,
      layers: [layer],
      annotations: labels,
    };
    manifests.push(
      await blob(layout, manifest.mediaType, Buffer.from(JSON.stringify(manifest)), {
        platform: { architecture: platform.architecture, os: 'linux' },
      }),
    );
  }
  // index.json names the multi-platform image by the version: an image index listing the two
  // platforms' manifests, which is how a registry keeps it once it is copied there (skopeo copy
  // --all). It also names each platform's manifest by `<version>-<architecture>`: umoci follows
  // a name down to every manifest under it and refuses the version's two ("tag is ambiguous"),
  // and has no flag to choose a platform, so it unpacks one of those (docs/kubernetes.md).
  const version = labels['org.opencontainers.image.version'];
  const index = { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests, annotations: labels };
  const indexBlob = await blob(layout, index.mediaType, Buffer.from(JSON.stringify(index)), {
    annotations: { 'org.opencontainers.image.ref.name': version },
  });
  const perPlatform = manifests.map((manifest) => ({
    ...manifest,
    annotations: { 'org.opencontainers.image.ref.name': platformTag(version, manifest.platform.architecture) },
  }));
  await writeFile(
    join(layout, 'index.json'),
    JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [indexBlob, ...perPlatform] }),
  );
  await writeFile(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  // The oci-archive: the layout as a tar (what skopeo's oci-archive: transport reads).
  run('tar', [
    '--create',
    '--file',
    file,
    '--sort=name',
    `--mtime=@${epoch}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '-C',
    layout,
    'blobs',
    'index.json',
    'oci-layout',
  ]);
}
