#!/usr/bin/env node
// The published entry point. CommonJS on purpose: Node starts a CommonJS file about 10 ms
// sooner than an ES module, so the two answers that need no code at all — the version, and
// the overview that `npm run build` pre-renders at 80 columns — are given from here.
//
// Every other command runs dist/bundle/rfs.cjs, the CLI as one CommonJS function
// (scripts/build.mjs), on every Node and for every run, --verbose included. It is compiled with
// V8's code cache of it, kept per user in $XDG_CACHE_HOME/rfs (~/.cache/rfs) and written at the
// end of the first run on each Node: so the cache holds the functions that run compiled, not
// only the top level that Node's own compile cache keeps (bench/README.md, "How rfs starts").
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; NODE_DEBUG=rfs-bundle says what happened to it.
'use strict';

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

/** Runs dist/bundle/rfs.cjs: compiled with its code cache for this V8, or, for --verbose, required. */
function runBundle() {
  const { join } = require('node:path');
  const dir = join(__dirname, '..', 'dist', 'bundle');
  const filename = join(dir, 'rfs.cjs');
  if (wantsStackTraces()) {
    // --verbose prints stack traces, mapped to src/ through rfs.cjs.map: the same file, loaded by
    // Node's own loader, which reads the map when source maps are on (a cost only these runs pay).
    process.setSourceMapsEnabled(true);
    require(filename);
    return;
  }
  const debug = require('node:util').debuglog('rfs-bundle');
  const { readFileSync } = require('node:fs');
  // ASCII (esbuild escapes the rest), so latin1 is the cheap, exact decoding.
  const source = readFileSync(filename, 'latin1');
  // The first line names the bundle by a hash of its text (scripts/commonjs-bundle.mjs): V8 checks
  // only a cache's length against the source, so the name is what keeps another build's cache out.
  const id = /^\/\/ rfs bundle ([0-9a-f]+)\n/.exec(source)?.[1];
  let cache;
  let cachedData;
  if (process.env.NODE_DISABLE_COMPILE_CACHE) debug('NODE_DISABLE_COMPILE_CACHE is set: no code cache');
  else if (id !== undefined) {
    cache = join(cacheFolder(), `${id}-v8-${process.versions.v8}-${process.arch}.cache`);
    try {
      cachedData = readFileSync(cache);
    } catch {
      debug('no code cache yet at %s', cache);
    }
  }
  const { Script } = require('node:vm');
  // The wrapper Node's loader puts around a CommonJS file.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`;
  const script = new Script(wrapped, { filename, cachedData });
  if (cachedData !== undefined) debug('code cache %s', script.cachedDataRejected ? 'rejected' : 'accepted');
  // A cache missing or rejected (other V8 flags) is written when this run ends: it then holds
  // every function the run compiled.
  if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => saveCache(cache, script, debug));
  }
  script.runInThisContext()(module.exports, require, module, filename, dir);
}

/** A cache of another build or Node that has not been written for this long goes. */
const STALE_CACHE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Writes the cache atomically (a reader never sees half a file), 0600 in a 0700 folder; then
 * removes the caches that older builds and Nodes left and nothing has rewritten for 30 days.
 */
function saveCache(cache, script, debug) {
  const fs = require('node:fs');
  const { basename, dirname, join } = require('node:path');
  const folder = dirname(cache);
  const temporary = `${cache}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temporary, cache);
    debug('code cache written to %s', cache);
    for (const name of fs.readdirSync(folder)) {
      const file = join(folder, name);
      if (!name.endsWith('.cache') || name === basename(cache)) continue;
      if (Date.now() - fs.statSync(file).mtimeMs > STALE_CACHE_MS) fs.rmSync(file, { force: true });
    }
  } catch (error) {
    // A read-only home or a full disk: the next run compiles again, nothing else.
    fs.rmSync(temporary, { force: true });
    debug('code cache not written: %s', error.message);
  }
}
