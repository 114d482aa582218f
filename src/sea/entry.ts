// The main script of the single executable (scripts/package.mjs). It is kept tiny on purpose:
// Node compiles the whole main script at every start, so the CLI itself (src/main.ts, bundled
// as one CommonJS function) travels as an asset of the executable, with a V8 code cache made
// at build time by running it once. `--version` answers before any of that is touched.
//
// `NODE_DEBUG=rfs-sea` reports on stderr whether V8 accepted the code cache.
import { getAsset, getRawAsset } from 'node:sea';
import { dirname } from 'node:path';
import { debuglog } from 'node:util';
import { Script } from 'node:vm';

/** The asset names; scripts/package.mjs uses the same. */
const APP = 'rfs-app.js';
const APP_CACHE = 'rfs-app.cache';

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

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === '--version') process.stdout.write(`${RFS_VERSION}\n`);
else start();
