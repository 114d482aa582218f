// Makes the V8 code caches of the CommonJS bundle's two scripts (scripts/commonjs-bundle.mjs):
//   node train-code-cache.cjs <first script's function> <cache out> <runs as JSON> <config folder>
//                             <second script's function> <its cache out>
// starts the bundle's own sandbox in a child (the same file, called with --serve), runs each
// run in this process one after the other, and writes the caches when all have succeeded: the
// second script's holds what the runs compiled of it, or its top level when they never loaded it.
'use strict';

const { spawn } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { createInterface } = require('node:readline');
const { Script } = require('node:vm');

const [source, cache, runsJson, configDir, secondSource, secondCache] = process.argv.slice(2);
const script = new Script(readFileSync(source, 'latin1'), { filename: 'rfs.js' });
const app = script.runInThisContext();
let secondScript;
// As src/sea/entry.ts loads the second script (src/lazy/second-script.cjs asks for it).
globalThis[Symbol.for('rfs.loadScript')] = (name) => {
  secondScript = new Script(readFileSync(secondSource, 'latin1'), { filename: name });
  const loaded = { exports: {} };
  secondScript.runInThisContext()(loaded.exports, require, loaded, process.execPath, dirname(process.execPath));
  return loaded.exports;
};
const runApp = (args) => {
  process.argv = [process.argv[0], process.argv[0], ...args];
  app(module.exports, require, module, process.execPath, dirname(process.execPath));
};

if (cache === '--serve') {
  runApp(['sandbox', '--port', '0', '--seed', '1', '--recordings', '60']);
} else {
  const runs = JSON.parse(runsJson);
  const child = spawn(process.execPath, [__filename, source, '--serve', '', '', secondSource], { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => child.kill());
  createInterface({ input: child.stdout }).once('line', (line) => {
    const sandbox = JSON.parse(line);
    child.stdout.destroy();
    child.unref();
    Object.assign(process.env, { RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin, RFS_CONFIG_DIR: configDir });
    let next = 0;
    // The CLI ends each run with process.exit() once its output is flushed (src/main.ts): here
    // that call starts the next run instead, and after the last one writes the cache. A run
    // that fails ends the process, and no cache is written.
    const exit = process.exit.bind(process);
    process.exit = (code) => {
      if ((code ?? process.exitCode ?? 0) !== 0) return exit(code ?? process.exitCode);
      if (next < runs.length) return runApp(runs[next++]);
      writeFileSync(cache, script.createCachedData());
      secondScript ??= new Script(readFileSync(secondSource, 'latin1'), { filename: 'rfs-more.cjs' });
      writeFileSync(secondCache, secondScript.createCachedData());
      return exit(0);
    };
    runApp(runs[next++]);
  });
}
