// The main script of the single executable (scripts/package.mjs). It is kept tiny on purpose:
// Node compiles the whole main script at every start, so the CLI itself (src/main.ts, bundled
// as two CommonJS functions: what one page runs, and the rest) travels as assets of the
// executable, each with a V8 code cache made at build time by running it once. `--version`, and `--help` where the overview rendered at 80
// columns fits (as bin/rfs.js does), answer before any of that is touched.
//
// `NODE_DEBUG=rfs-sea` reports on stderr whether V8 accepted the code cache.
import { getAsset, getRawAsset } from 'node:sea';
import { fstatSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { debuglog } from 'node:util';
import { Script } from 'node:vm';

/** The asset names; scripts/package.mjs uses the same. */
const APP = 'rfs-app.js';
const APP_CACHE = 'rfs-app.cache';
/** The bundle's second script (SECOND_SCRIPT in scripts/commonjs-bundle.mjs) and its cache. */
const SECOND = 'rfs-more.cjs';
const SECOND_CACHE = 'rfs-more.cache';
const HELP = 'help.txt';
const SEA_NOTE = 'rfs-sea.json';

/** The asset is `(function (exports, require, module, __filename, __dirname) {…})`. */
type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: typeof globalThis.module,
  filename: string,
  dirname: string,
) => void;

function codeCache(name: string): Buffer | undefined {
  try {
    return Buffer.from(getRawAsset(name) as ArrayBuffer);
  } catch {
    return undefined; // built with --no-code-cache
  }
}

/**
 * Runs the bundle's script in asset `asset`, compiled with the code cache in asset `cacheAsset`,
 * as the module `target`. Neither can be changed without changing the executable, so the cache
 * is given to V8 as it is (bin/rfs.js checks the caches it reads from the user's folder).
 */
function runScript(asset: string, cacheAsset: string, target: typeof globalThis.module, filename: string): void {
  const debug = debuglog('rfs-sea');
  const cachedData = codeCache(cacheAsset);
  // The bundle is ASCII (esbuild escapes the rest), so latin1 is the cheap, exact decoding.
  const script = new Script(getAsset(asset, 'latin1'), { filename, ...(cachedData === undefined ? {} : { cachedData }) });
  const verdict = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  if (asset === APP) debug('code cache %s', verdict);
  else debug('code cache %s (%s)', verdict, asset);
  const main = script.runInThisContext() as CommonJsWrapper;
  // Inside a single executable, this require() loads built-in modules only: all the bundle needs.
  main(target.exports, require, target, process.execPath, dirname(process.execPath));
}

function start(): void {
  // The bundle's second script (scripts/commonjs-bundle.mjs, bundleSplit), run when a command
  // first needs it: the asset of that name, with its cache.
  (globalThis as Record<symbol, unknown>)[Symbol.for('rfs.loadScript')] = (name: string): unknown => {
    if (name !== SECOND) throw new Error(`rfs: no script ${JSON.stringify(name)} in the executable`);
    const loaded = { exports: {} } as typeof globalThis.module;
    runScript(SECOND, SECOND_CACHE, loaded, SECOND);
    return loaded.exports;
  };
  runScript(APP, APP_CACHE, module, 'rfs.js');
}

/** The overview is wrapped at 80 columns: used off a terminal, or on one that wide. */
function fitsPrerendered(): boolean {
  return (mayBeTerminal() && process.stdout.isTTY ? process.stdout.columns : 80) >= 80;
}

/** A character device other than /dev/null, asked without node:tty, as bin/rfs.js does. */
function mayBeTerminal(): boolean {
  try {
    const out = fstatSync(1);
    return out.isCharacterDevice() && out.rdev !== statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}

/** To file descriptor 1 without making process.stdout, as bin/rfs.js does (it says why). */
function print(text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(1, bytes, written);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN') process.stdout.write(bytes.subarray(written));
    else if (code !== 'EPIPE') throw error;
  }
}

/**
 * An executable built on a Node that ignores execArgvExtension reads NODE_OPTIONS, unlike a
 * release's (scripts/package.mjs records which, in this asset): it says so whenever NODE_OPTIONS
 * is set, so that nobody takes it for one that ignores it. Nothing is read when it is not set.
 */
function noteNodeOptions(): void {
  if (!process.env.NODE_OPTIONS) return;
  let note: { nodeOptions?: string; builtWith?: string };
  try {
    note = JSON.parse(getAsset(SEA_NOTE, 'utf8')) as typeof note;
  } catch {
    return; // An executable from before the note: a release's Node had the setting.
  }
  if (note.nodeOptions !== 'read') return;
  process.stderr.write(
    `rfs: NODE_OPTIONS was read: this executable was built on Node ${note.builtWith ?? '(unknown)'}, which ignores execArgvExtension; a release's executable does not read it\n`,
  );
}

noteNodeOptions();
const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version') print(`${RFS_VERSION}\n`);
else if ((only === '--help' || only === '-h') && fitsPrerendered()) print(getAsset(HELP, 'utf8'));
else start();
