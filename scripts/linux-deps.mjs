// The dependencies of the .deb and .rpm packages (../shared/spec/release.md, "Single executables"):
// computed from the libraries each executable really needs, as `readelf -d` lists them (its
// NEEDED entries), and the newest glibc symbol version it uses (`readelf -V`), never written by
// hand. scripts/release.mjs writes them into the packages; scripts/release-check.mjs computes them
// again from the packaged executable and compares them with what `dpkg-deb` and `rpm -qpR` say.
import { execFileSync } from 'node:child_process';

/**
 * Each shared library Node's Linux binaries may need, and the package that holds it: Debian's
 * (Depends of the .deb) and Fedora/RHEL's (named in the docs; the .rpm requires the library
 * itself, see rpmRequires). glibc's libraries all come from one package.
 */
export const LIBRARY_PACKAGES = {
  'libc.so.6': { deb: 'libc6', rpm: 'glibc' },
  'libm.so.6': { deb: 'libc6', rpm: 'glibc' },
  'libdl.so.2': { deb: 'libc6', rpm: 'glibc' },
  'libpthread.so.0': { deb: 'libc6', rpm: 'glibc' },
  'librt.so.1': { deb: 'libc6', rpm: 'glibc' },
  'ld-linux-x86-64.so.2': { deb: 'libc6', rpm: 'glibc' },
  'ld-linux-aarch64.so.1': { deb: 'libc6', rpm: 'glibc' },
  'libstdc++.so.6': { deb: 'libstdc++6', rpm: 'libstdc++' },
  'libgcc_s.so.1': { deb: 'libgcc-s1', rpm: 'libgcc' },
  'libatomic.so.1': { deb: 'libatomic1', rpm: 'libatomic' },
};

function readelf(args, file) {
  // readelf reads any architecture's ELF file (binutils is multi-target for these headers).
  return execFileSync('readelf', [...args, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
}

/** The NEEDED entries of an ELF file's dynamic section, in the order readelf lists them. */
export function neededLibraries(file) {
  return [...readelf(['-d', '-W'], file).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
}

/** The newest GLIBC_x.y symbol version the file needs (its .gnu.version_r section), e.g. "2.28". */
export function glibcVersion(file) {
  const versions = [...readelf(['-V', '-W'], file).matchAll(/Name: GLIBC_(\d+(?:\.\d+)+)\s/g)].map((m) => m[1]);
  if (versions.length === 0) throw new Error(`${file}: readelf -V lists no GLIBC_ version`);
  const parts = (v) => v.split('.').map(Number);
  return versions.sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < Math.max(x.length, y.length); i += 1) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
    return 0;
  })[versions.length - 1];
}

function packageOf(library) {
  const known = LIBRARY_PACKAGES[library];
  // A library nobody has mapped is a new dependency: the release stops rather than ship a
  // package that installs and then fails to start.
  if (known === undefined) throw new Error(`the executable needs ${library}, which LIBRARY_PACKAGES (scripts/linux-deps.mjs) does not map`);
  return known;
}

/** Depends of the .deb: one Debian package per library needed, libc6 with the glibc version. */
export function debDepends(file) {
  const glibc = glibcVersion(file);
  const packages = [...new Set(neededLibraries(file).map((library) => packageOf(library).deb))];
  return packages.map((name) => (name === 'libc6' ? `libc6 (>= ${glibc})` : name));
}

/**
 * Requires of the .rpm, as rpmbuild's own dependency generator (elfdeps) spells them: each
 * library needed, by soname and word size ("libatomic.so.1()(64bit)"), and glibc's symbol
 * version ("libc.so.6(GLIBC_2.28)(64bit)"). A soname names the library wherever a distribution
 * puts it (Fedora's libatomic, openSUSE's libatomic1), which a package name does not.
 */
export function rpmRequires(file) {
  const needed = neededLibraries(file);
  for (const library of needed) packageOf(library);
  return [...needed.map((library) => `${library}()(64bit)`), `libc.so.6(GLIBC_${glibcVersion(file)})(64bit)`];
}
