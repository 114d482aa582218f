// The main script of the single executable (scripts/package.mjs). It is kept tiny on purpose:
// Node compiles the whole main script at every start, so the CLI itself (src/main.ts, bundled
// as one CommonJS function) travels as an asset of the executable, with a V8 code cache made
// at build time by running it once. `--version`, and `--help` where the overview rendered at 80
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

function codeCache(): Buffer | undefined {
  try {
    return Buffer.from(getRawAsset(APP_CACHE) as ArrayBuffer);
  } catch {
    return undefined; // built with --no-code-cache
  }
}

function start(): void {
  const debug = debuglog('rfs-sea');
  const cachedData = codeCache();
  // The bundle is ASCII (esbuild escapes the rest), so latin1 is the cheap, exact decoding.
  const script = new Script(getAsset(APP, 'latin1'), { filename: 'rfs.js', ...(cachedData === undefined ? {} : { cachedData }) });
  debug('code cache %s', cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted');
  const main = script.runInThisContext() as CommonJsWrapper;
  // Inside a single executable, this require() loads built-in modules only: all the bundle needs.
  main(module.exports, require, module, process.execPath, dirname(process.execPath));
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
