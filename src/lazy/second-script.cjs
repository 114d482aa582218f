// Stands in, in the first script of the CommonJS bundle (scripts/commonjs-bundle.mjs,
// bundleSplit), for each module behind an `import()` that one page of `recordings list` does not
// take: those modules travel in the second script, dist/bundle/rfs-more.cjs or the single
// executable's asset of that name, compiled the first time a command imports one of them. So one
// page compiles (and reads from its code cache) only what it runs (bench/RESULTS.md, "How rfs
// starts").
//
// bin/rfs.js and src/sea/entry.ts hand over the loader that compiles a script with its code cache
// (the same checks as the first script's); when the bundle runs without one (Node's own loader:
// `--verbose`, the build's own runs), the file beside the first script is required.
'use strict';

/** SECOND_SCRIPT in scripts/commonjs-bundle.mjs. */
const FILE = 'rfs-more.cjs';

let second;

/** The exports of the module at `path` (a repository path) of the second script. */
module.exports = function fromSecondScript(path) {
  if (second === undefined) {
    const load = globalThis[Symbol.for('rfs.loadScript')];
    const made = typeof load === 'function' ? load(FILE) : require(require('node:path').join(__dirname, FILE));
    // The second script takes the modules both scripts use from this one: one instance of each.
    // biome-ignore lint/correctness/noUndeclaredDependencies: no package: the table bundleSplit makes in the first script
    const first = require('rfs-first-modules');
    second = made((p) => first[p]());
  }
  return second[path]();
};
