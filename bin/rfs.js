#!/usr/bin/env node
// The published entry point. CommonJS on purpose: Node starts a CommonJS file about 10 ms
// sooner than an ES module, so the two answers that need no code at all — the version, and
// the overview that `npm run build` pre-renders at 80 columns — are given from here. Every
// other command loads the bundle (ESM, split into lazily imported chunks) in dist/.
'use strict';

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
if (only === '--version') {
  process.stdout.write(`${require('../package.json').version}\n`);
} else if ((only === '--help' || only === '-h') && fitsPrerendered()) {
  process.stdout.write(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt'), 'utf8'));
} else {
  // Node 22.1+ can keep V8's compiled code of the bundle's chunks on disk (in the OS temporary
  // folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): measured on Node
  // 24, one page of `recordings list` starts about 35 ms sooner. Node 20 has no such API.
  require('node:module').enableCompileCache?.();
  import('../dist/main.js');
}

/** The pre-rendered overview is wrapped at 80 columns: used off a terminal, or on one that wide. */
function fitsPrerendered() {
  const columns = process.stdout.isTTY ? process.stdout.columns : 80;
  return columns >= 80 && require('node:fs').existsSync(require('node:path').join(__dirname, '..', 'dist', 'help.txt'));
}
