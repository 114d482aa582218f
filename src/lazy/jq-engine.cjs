// Stands in for src/output/jq-engine-location.ts in the CommonJS builds
// (scripts/commonjs-bundle.mjs). The engine is 1.3 MB of JavaScript (jq's WebAssembly as base64):
// inside the one-file bundle, V8 would read it at every start of every command, --jq or not. It
// travels beside the bundle instead, and only the worker thread of --jq loads it:
// dist/bundle/jq-engine.cjs, or the single executable's asset of the same name, handed over as text.
'use strict';

const ENGINE = 'jq-engine.cjs';

exports.jqEngineLocation = async function jqEngineLocation() {
  const sea = require('node:sea');
  if (!sea.isSea()) return { path: require('node:path').join(__dirname, ENGINE) };
  return { source: sea.getAsset(ENGINE, 'latin1') };
};
