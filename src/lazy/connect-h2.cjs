// Stands in for undici's lib/dispatcher/client-h2.js in the bundles (scripts/lazy-requires.mjs):
// the same function, whose module, and node:http2 with it, is loaded on its first call only.
'use strict';

module.exports = function connectH2(client, socket) {
  return require('undici/lib/dispatcher/client-h2.js')(client, socket);
};
