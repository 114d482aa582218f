// Stands in for node:assert in undici's modules in the bundles (scripts/lazy-requires.mjs).
// undici only calls assert(value, message) to check its own invariants, which hold: the real
// module (and its AssertionError, diff printer and colours) is required only when one fails,
// or when a member is read, so anything else undici may ever call still behaves as before.
'use strict';

function assert(value, message) {
  if (!value) require('node:assert')(value, message);
}

module.exports = new Proxy(assert, {
  get(target, name) {
    return name in target ? target[name] : require('node:assert')[name];
  },
});
