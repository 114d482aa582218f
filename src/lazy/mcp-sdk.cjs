// Stands in for src/commands/mcp/sdk.ts in the CommonJS builds (scripts/commonjs-bundle.mjs).
// The Model Context Protocol SDK and what it brings (its protocol schemas, a JSON Schema
// validator) is about a quarter of a megabyte of JavaScript that only `rfs mcp` runs: inside
// the one-file bundle V8 would read it at every start of every command. It travels beside the
// bundle instead: dist/bundle/mcp-sdk.cjs, or the single executable's asset of the same name,
// which needs nothing but Node's built-in modules (every dependency is inlined).
'use strict';

const ASSET = 'mcp-sdk.cjs';

const sea = require('node:sea');
if (!sea.isSea()) {
  module.exports = require(require('node:path').join(__dirname, ASSET));
} else {
  const source = sea.getAsset(ASSET, 'utf8');
  const loaded = { exports: {} };
  const params = ['exports', 'require', 'module', '__filename', '__dirname'];
  require('node:vm').compileFunction(source, params, { filename: ASSET })(loaded.exports, require, loaded, ASSET, '.');
  module.exports = loaded.exports;
}
