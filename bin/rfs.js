#!/usr/bin/env node
// The published entry point. CommonJS on purpose: Node starts a CommonJS file about 10 ms
// sooner than an ES module, so the two answers that need no code at all — the version, and
// the overview that `npm run build` pre-renders at 80 columns — are given from here.
//
// Every other command runs one of the two builds in dist/ (scripts/build.mjs):
// - dist/bundle/rfs.js, the CLI as one CommonJS function, when dist/bundle/ holds V8's code
//   cache of it for this Node's V8: compiled code is read instead of compiled;
// - otherwise dist/main.js, the CLI as ES modules split into lazily imported chunks, with Node's
//   own compile cache on Node 22.1+ (kept in the OS temporary folder, or NODE_COMPILE_CACHE).
// NODE_DISABLE_COMPILE_CACHE=1 turns both caches off. NODE_DEBUG=rfs-bundle says which ran.
'use strict';

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version') {
  print(`${require('../package.json').version}\n`);
} else if ((only === '--help' || only === '-h') && fitsPrerendered()) {
  print(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt')));
} else if (wantsStackTraces()) {
  // --verbose prints stack traces: the ES module build, whose chunks have source maps, read
  // only now (parsing them costs start-up time that other runs do not pay).
  process.setSourceMapsEnabled(true);
  startModules();
} else if (!runCachedBundle()) {
  startModules();
}

/** -v, --verbose (also among combined short flags, -qv) or RFS_DEBUG, as src/main.ts reads them. */
function wantsStackTraces() {
  const debug = process.env.RFS_DEBUG;
  if (debug && debug !== '0' && debug.toLowerCase() !== 'false') return true;
  return argv.some((a) => a === '--verbose' || /^-[A-Za-z]*v[A-Za-z]*$/.test(a));
}

function startModules() {
  require('node:module').enableCompileCache?.();
  // main.js handles its own failures (src/main.ts); nothing here waits for it.
  void import('../dist/main.js');
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

/** Runs dist/bundle/rfs.js with its code cache; false, having run nothing, when there is none. */
function runCachedBundle() {
  const debug = require('node:util').debuglog('rfs-bundle');
  if (process.env.NODE_DISABLE_COMPILE_CACHE) {
    debug('NODE_DISABLE_COMPILE_CACHE is set: the ES module build');
    return false;
  }
  const { readFileSync } = require('node:fs');
  const { join } = require('node:path');
  const dir = join(__dirname, '..', 'dist', 'bundle');
  let cachedData;
  try {
    cachedData = readFileSync(join(dir, `v8-${process.versions.v8}-${process.arch}.cache`));
  } catch {
    debug('no code cache for V8 %s: the ES module build', process.versions.v8);
    return false;
  }
  const filename = join(dir, 'rfs.js');
  const { Script } = require('node:vm');
  // ASCII (esbuild escapes the rest), so latin1 is the cheap, exact decoding.
  const script = new Script(readFileSync(filename, 'latin1'), { filename, cachedData });
  // A rejected cache (other V8 flags, say) costs only the compile it would have saved.
  debug('the CommonJS bundle, code cache %s', script.cachedDataRejected ? 'rejected' : 'accepted');
  script.runInThisContext()(module.exports, require, module, filename, dir);
  return true;
}
