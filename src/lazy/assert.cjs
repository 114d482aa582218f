// Stands in for node:assert in undici's modules in the bundles (scripts/lazy-requires.mjs).
// undici only calls assert(value, message) to check its own invariants, which hold: the real
// module (and its AssertionError, diff printer and colours) is required only when one fails,
// or when one of its other members is read. A plain function, not a Proxy: undici calls it
// several times per parsed chunk, and a call through a Proxy is never inlined.
'use strict';

function assert(value, message) {
  if (!value) require('node:assert')(value, message);
}

// node:assert's other members (Node 20 to 24), each read from the real module on first use.
const MEMBERS = ['AssertionError', 'CallTracker', 'deepEqual', 'deepStrictEqual', 'doesNotMatch', 'doesNotReject', 'doesNotThrow', 'equal', 'fail', 'ifError', 'match', 'notDeepEqual', 'notDeepStrictEqual', 'notEqual', 'notStrictEqual', 'ok', 'partialDeepStrictEqual', 'rejects', 'strict', 'strictEqual', 'throws'];
for (const name of MEMBERS) {
  Object.defineProperty(assert, name, { configurable: true, enumerable: true, get: () => require('node:assert')[name] });
}

module.exports = assert;
