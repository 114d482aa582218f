#!/usr/bin/env node
// The published entry point. CommonJS on purpose: Node starts a CommonJS file about 10 ms
// sooner than an ES module, so the two answers that need no code at all — the version, and
// the overview that `npm run build` pre-renders at 80 columns — are given from here.
//
// Every other command runs dist/bundle/rfs.cjs, the CLI as CommonJS (scripts/build.mjs), on
// every Node and for every run, --verbose included; what one page does not run is in a second
// script beside it, rfs-more.cjs, run when a command first needs it. Each is compiled with
// V8's code cache of it, kept per user in $XDG_CACHE_HOME/rfs (~/.cache/rfs) and written at the
// end of the first run on each Node: so the cache holds the functions that run compiled, not
// only the top level that Node's own compile cache keeps (bench/README.md, "How rfs starts").
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; NODE_DEBUG=rfs-bundle says what happened to it.
'use strict';

// The code cache's rules (runBundle, below): declared before the first run of it.
/** The file's first bytes: this tag, the checksum as 8 hex digits, a newline. */
const CACHE_TAG = 'rfs-code-cache crc32 ';
const CACHE_HEADER_LENGTH = CACHE_TAG.length + 8 + 1;
/** Far above any real cache (about 1 MB); a larger file is not read at all. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Caches kept besides the one written (a user who switches Nodes): this build's other script's,
 * and those of the three newest other builds or Nodes, two scripts each.
 */
const OTHER_CACHES_KEPT = 1 + 3 * 2;
/** A temporary file older than this is one a killed run left. */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version') {
  print(`${require('../package.json').version}\n`);
} else if ((only === '--help' || only === '-h') && fitsPrerendered()) {
  print(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt')));
} else {
  runBundle();
}

/** -v, --verbose (also among combined short flags, -qv) or RFS_DEBUG, as the CLI reads them. */
function wantsStackTraces() {
  const debug = process.env.RFS_DEBUG;
  if (debug && debug !== '0' && debug.toLowerCase() !== 'false') return true;
  return argv.some((a) => a === '--verbose' || /^-[A-Za-z]*v[A-Za-z]*$/.test(a));
}

/**
 * Writes to file descriptor 1 without making process.stdout: setting that stream up (a pipe's
 * socket, a file's stream) cost these two answers about a tenth of `node -e 0`
 * (bench/README.md, "How rfs starts"). The stream takes over what a full pipe does not accept.
 */
function print(text) {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += require('node:fs').writeSync(1, bytes, written);
  } catch (error) {
    if (error.code === 'EAGAIN') process.stdout.write(bytes.subarray(written));
    else if (error.code !== 'EPIPE') throw error;
  }
}

/**
 * Whether file descriptor 1 may be a terminal, asked without node:tty (which loads node:net and
 * the streams, the cost print() avoids): a character device other than /dev/null.
 */
function mayBeTerminal() {
  const fs = require('node:fs');
  try {
    const out = fs.fstatSync(1);
    return out.isCharacterDevice() && out.rdev !== fs.statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}

/** The pre-rendered overview is wrapped at 80 columns: used off a terminal, or on one that wide. */
function fitsPrerendered() {
  const columns = mayBeTerminal() && process.stdout.isTTY ? process.stdout.columns : 80;
  return columns >= 80 && require('node:fs').existsSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt'));
}

/**
 * The folder of the code caches: $XDG_CACHE_HOME/rfs, else ~/.cache/rfs. The user's own, never
 * the shared temporary folder (Node's default for its compile cache), where another user could
 * leave a file for rfs to load; nor the package's folder, read-only in a global install.
 */
function cacheFolder() {
  const { join } = require('node:path');
  const xdg = process.env.XDG_CACHE_HOME;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  return join(xdg?.startsWith('/') ? xdg : join(process.env.HOME || require('node:os').homedir(), '.cache'), 'rfs');
}

/**
 * Runs dist/bundle/rfs.cjs: compiled with its code cache for this V8, or, for --verbose, required.
 * The bundle is two scripts (scripts/commonjs-bundle.mjs, bundleSplit): rfs.cjs, what one page
 * runs, and rfs-more.cjs, the rest, which the first asks for through the loader set here when a
 * command first needs it; each is compiled with a code cache of its own, under the same rules.
 */
function runBundle() {
  const { join } = require('node:path');
  const dir = join(__dirname, '..', 'dist', 'bundle');
  const filename = join(dir, 'rfs.cjs');
  if (wantsStackTraces()) {
    // --verbose prints stack traces, mapped to src/ through rfs.cjs.map: the same file, loaded by
    // Node's own loader, which reads the map when source maps are on (a cost only these runs pay).
    // With no loader set, the first script requires the second the same way (src/lazy/second-script.cjs).
    process.setSourceMapsEnabled(true);
    require(filename);
    return;
  }
  const debug = debugLog('rfs-bundle');
  globalThis[Symbol.for('rfs.loadScript')] = (name) => {
    if (!/^[\w-]+\.cjs$/.test(name)) throw new Error(`rfs: no script ${JSON.stringify(name)} in the bundle`);
    const loaded = { exports: {} };
    // Its messages name it; the first script's read as they always have.
    runScript(join(dir, name), loaded, (format, ...args) => debug(`${format} (%s)`, ...args, name));
    return loaded.exports;
  };
  runScript(filename, module, debug);
}

/**
 * NODE_DEBUG's logger for `section`, its arguments (paths from XDG_CACHE_HOME, error messages)
 * escaped by the one escaping function for the terminal, src/core/sanitize.ts, which the build
 * puts beside the bundle (scripts/build.mjs); loaded only when the section is on.
 */
function debugLog(section) {
  const log = require('node:util').debuglog(section);
  if (!log.enabled) return log;
  const { sanitize } = require(require('node:path').join(__dirname, '..', 'dist', 'bundle', 'sanitize.cjs'));
  return (format, ...args) => log(format, ...args.map((arg) => (typeof arg === 'string' ? sanitize(arg) : arg)));
}

/** Compiles the CommonJS file `filename` with its code cache, if one passes every rule, and runs it as `target`. */
function runScript(filename, target, debug) {
  const { dirname, join } = require('node:path');
  const bytes = require('node:fs').readFileSync(filename);
  // ASCII (esbuild escapes the rest), so latin1 is the cheap, exact decoding.
  const source = bytes.latin1Slice(0, bytes.length);
  // The first line names the script by a hash of its text (scripts/commonjs-bundle.mjs), so that
  // each build has a cache file of its own; the checksum inside the file is what ties a cache to
  // these very bytes (V8 itself compares only the source's length).
  const id = /^\/\/ rfs bundle ([0-9a-f]+)\n/.exec(source)?.[1];
  let cache;
  let cachedData;
  if (process.env.NODE_DISABLE_COMPILE_CACHE) debug('NODE_DISABLE_COMPILE_CACHE is set: no code cache');
  else if (id !== undefined) {
    cache = join(cacheFolder(), `${id}-v8-${process.versions.v8}-${process.arch}.cache`);
    cachedData = readCache(cache, bytes, debug);
  }
  const { Script } = require('node:vm');
  // The wrapper Node's loader puts around a CommonJS file.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
  const script = new Script(wrapped, { filename, cachedData });
  if (cachedData !== undefined) {
    if (script.cachedDataRejected) debug('code cache set aside: rejected by V8 (other V8 flags)');
    else debug('code cache accepted');
  }
  // A cache missing, set aside or rejected is written when this run ends: it then holds every
  // function the run compiled.
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => saveCache(cache, script, bytes, debug));
  }
  script.runInThisContext()(target.exports, require, target, filename, dirname(filename));
}

// The code cache is code: V8 runs what it holds for the bundle's functions, checking only its
// own version, its flags and the source's length. So rfs takes a cache only when it is the
// user's own and intact, and decides that before V8 sees a byte of it:
// - the folder is a directory owned by this user (the effective uid: under sudo, root's) and
//   not writable by group or others, so no one else can have put or swapped a file in it;
// - the file is opened without following a link and without waiting on a FIFO, and what is
//   open (fstat) is a regular file owned by this user, not writable by group or others, of a
//   bounded size;
// - the file starts with a checksum that rfs wrote with it: a CRC-32 of the whole bundle's bytes
//   followed by the cache's, so a damaged cache, or a cache of an edited bundle of the same
//   length, is never given to V8.
// A cache that fails one of these is set aside (removed, when the folder is the user's own)
// and a good one is written when the run ends. NODE_DEBUG=rfs-bundle names the rule.

/**
 * The cache's checksum: CRC-32 of the bundle's bytes, then the cache's. A CRC catches every
 * damaged byte (any burst of up to 32 bits) and ties the cache to these bytes of the bundle;
 * what keeps a planted cache out is the owner and mode rules, which no checksum could (anyone
 * can compute one). node:zlib costs a start half of what node:crypto's sha256 does
 * (bench/RESULTS.md, "The code cache's checks").
 */
function cacheChecksum(bundle, data) {
  const { crc32 } = require('node:zlib');
  return crc32(data, crc32(bundle)).toString(16).padStart(8, '0');
}

/** Why `stats` (a folder or a file) is not the user's own to trust, or undefined. */
function notOwn(stats) {
  // Windows has no owners or modes to check here; its profile folder is the user's.
  if (typeof process.geteuid !== 'function') return undefined;
  const euid = process.geteuid();
  if (stats.uid !== euid) return `owned by uid ${stats.uid}, not ${euid}`;
  if ((stats.mode & 0o022) !== 0) return `writable by group or others (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')})`;
  return undefined;
}

/** Why the cache folder may not be used, or undefined; `undefined` too when it does not exist. */
function untrustedFolder(folder) {
  let stats;
  try {
    // lstat: a link at the folder's name (planted by whoever owns the folder above) is refused,
    // never followed to a folder of someone else's.
    stats = require('node:fs').lstatSync(folder);
  } catch (error) {
    return error.code === 'ENOENT' ? undefined : `the folder cannot be read (${error.code})`;
  }
  if (stats.isSymbolicLink()) return 'the folder is a symbolic link';
  if (!stats.isDirectory()) return 'the folder is not a directory';
  const why = notOwn(stats);
  return why === undefined ? undefined : `the folder is ${why}`;
}

/** Why the nearest folder of `folder` that exists is not the user's own, or undefined. */
function foreignAncestor(folder) {
  if (typeof process.geteuid !== 'function') return undefined;
  const { dirname } = require('node:path');
  for (let at = folder; ; at = dirname(at)) {
    try {
      const { uid } = require('node:fs').lstatSync(at);
      return uid === process.geteuid() ? undefined : `${at} is owned by uid ${uid}, not ${process.geteuid()}`;
    } catch (error) {
      if (error.code !== 'ENOENT' || dirname(at) === at) return `${at} cannot be read (${error.code})`;
    }
  }
}

/**
 * Why the folder holding the cache folder is not the user's own, or undefined. Its owner can
 * rename the cache folder's entry at any moment: between the checks of the cache folder and the
 * writes in it, a link put there would take the temporary file, the rename and the pruning to a
 * folder of the owner's choosing. Only the owner is checked, not the mode: a private group's
 * 0775 home folders are common. A root-owned sticky folder (/tmp) passes: in it no one else may
 * rename the user's entry.
 */
function foreignParent(folder) {
  if (typeof process.geteuid !== 'function') return undefined;
  const { dirname } = require('node:path');
  const above = dirname(folder);
  const { uid, mode } = require('node:fs').lstatSync(above);
  if (uid === process.geteuid() || (uid === 0 && (mode & 0o1000) !== 0)) return undefined;
  return `${above} is owned by uid ${uid}, not ${process.geteuid()}`;
}

/** The V8 data of the cache at `cache`, when it passes every rule; else undefined. */
function readCache(cache, bundle, debug) {
  const fs = require('node:fs');
  const folderProblem = untrustedFolder(require('node:path').dirname(cache));
  if (folderProblem !== undefined) {
    debug('code cache not used: %s', folderProblem);
    return undefined;
  }
  const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;
  let fd;
  try {
    fd = fs.openSync(cache, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (error.code === 'ENOENT') debug('no code cache yet at %s', cache);
    else setAside(cache, error.code === 'ELOOP' ? 'it is a symbolic link' : `it cannot be opened (${error.code})`, debug);
    return undefined;
  }
  let file;
  try {
    const stats = fs.fstatSync(fd);
    const why = !stats.isFile()
      ? 'it is not a regular file'
      : (notOwn(stats) ?? (stats.size > MAX_CACHE_BYTES ? `it is larger than ${MAX_CACHE_BYTES} bytes` : undefined));
    if (why !== undefined) {
      setAside(cache, why, debug);
      return undefined;
    }
    file = Buffer.allocUnsafe(stats.size);
    let read = 0;
    for (let n = 1; n > 0 && read < file.length; read += n) n = fs.readSync(fd, file, read, file.length - read, null);
    file = file.subarray(0, read);
  } catch (error) {
    setAside(cache, `it cannot be read (${error.code ?? error.message})`, debug);
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
  const data = file.subarray(CACHE_HEADER_LENGTH);
  const header = file.latin1Slice(0, Math.min(file.length, CACHE_HEADER_LENGTH));
  if (header !== `${CACHE_TAG}${cacheChecksum(bundle, data)}\n`) {
    setAside(cache, 'its checksum does not match this bundle and its bytes', debug);
    return undefined;
  }
  return data;
}

/**
 * Removes a cache that failed a rule (the folder is the user's own: readCache checked), so that
 * no later run meets it even if this one dies; removing a link removes the link, not its target.
 */
function setAside(cache, why, debug) {
  debug('code cache set aside: %s', why);
  try {
    require('node:fs').unlinkSync(cache);
  } catch {
    // A folder in its place (unlink refuses it) stays, and the cache is not written over it.
  }
}

/**
 * Writes the cache, checksum first, to a temporary file created exclusively under a random name
 * (a file or link already there fails the write; nothing is followed), renamed over the cache (a
 * reader never sees half a file; a link at the cache's name is replaced, not written through),
 * 0600 in a 0700 folder that must pass the same rules as a read. Then prunes the caches of other
 * builds and Nodes to the few newest, and the temporary files killed runs left.
 */
function saveCache(cache, script, bundle, debug) {
  const fs = require('node:fs');
  const { basename, dirname, join } = require('node:path');
  const folder = dirname(cache);
  let temporary;
  try {
    // Folders are made only inside the user's own (root running with another user's HOME, as
    // `sudo -E` does, must not leave root-owned folders in that user's ~/.cache).
    const ancestorProblem = foreignAncestor(folder);
    if (ancestorProblem !== undefined) {
      debug('code cache not written: %s', ancestorProblem);
      return;
    }
    makeFolder(folder);
    const folderProblem = untrustedFolder(folder) ?? foreignParent(folder);
    if (folderProblem !== undefined) {
      debug('code cache not written: %s', folderProblem);
      return;
    }
    const data = script.createCachedData();
    const file = Buffer.concat([Buffer.from(`${CACHE_TAG}${cacheChecksum(bundle, data)}\n`, 'latin1'), data]);
    temporary = join(folder, `.${basename(cache)}.${require('node:crypto').randomBytes(8).toString('hex')}.tmp`);
    const fd = fs.openSync(temporary, 'wx', 0o600);
    try {
      for (let written = 0; written < file.length; ) written += fs.writeSync(fd, file, written);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, cache);
    temporary = undefined;
    debug('code cache written to %s', cache);
    pruneCaches(folder, basename(cache));
  } catch (error) {
    // A read-only home or a full disk: the next run compiles again, nothing else.
    if (temporary !== undefined) fs.rmSync(temporary, { force: true });
    debug('code cache not written: %s', error.message);
  }
}

/**
 * Makes `folder` and the missing folders above it, 0700, one mkdir each, nearest first. Not
 * mkdirSync's `recursive`: on Node 20 and 22 it loops for ever where mkdir answers ENOENT under a
 * folder that exists (XDG_CACHE_HOME=/proc/self), and rfs hung at exit; here that is an error,
 * and the run goes on without a cache.
 */
function makeFolder(folder) {
  const fs = require('node:fs');
  const { dirname } = require('node:path');
  const missing = [];
  for (let at = folder; !fs.existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.unshift(at);
  for (const at of missing) {
    try {
      fs.mkdirSync(at, { mode: 0o700 });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** Keeps the OTHER_CACHES_KEPT newest caches besides `current`; removes stale temporary files. */
function pruneCaches(folder, current) {
  const fs = require('node:fs');
  const { join } = require('node:path');
  const others = [];
  for (const name of fs.readdirSync(folder)) {
    const file = join(folder, name);
    try {
      if (/^[0-9a-f]+-v8-.+\.cache$/.test(name) && name !== current) others.push({ file, mtimeMs: fs.lstatSync(file).mtimeMs });
      else if (/^\..+\.[0-9a-f]{16}\.tmp$/.test(name) && Date.now() - fs.lstatSync(file).mtimeMs > STALE_TEMPORARY_MS) fs.unlinkSync(file);
    } catch {
      // Removed meanwhile by another run.
    }
  }
  others.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { file } of others.slice(OTHER_CACHES_KEPT)) fs.rmSync(file, { force: true });
}
