// Stands in for jq-wasm/inline in the CommonJS builds (scripts/commonjs-bundle.mjs). The engine
// is 1.3 MB of JavaScript (jq's WebAssembly as base64): inside the one-file bundle, V8 would
// read it at every start of every command, --jq or not (measured: about 60 ms more to load the
// bundle). It travels beside the bundle instead, and is read only when --jq runs:
// dist/bundle/jq-engine.cjs, or the single executable's asset of the same name.
'use strict';

const ENGINE = 'jq-engine.cjs';

function load() {
  const sea = require('node:sea');
  if (!sea.isSea()) return require(require('node:path').join(__dirname, ENGINE));
  const { Script } = require('node:vm');
  const wrapper = new Script(`(function (exports, require, module) {${sea.getAsset(ENGINE, 'latin1')}\n})`, { filename: ENGINE });
  const engine = { exports: {} };
  wrapper.runInThisContext()(engine.exports, require, engine);
  return engine.exports;
}

module.exports = load();
