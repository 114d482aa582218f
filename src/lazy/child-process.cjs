// Stands in for node:child_process in commander's lib/command.js in the bundles
// (scripts/lazy-requires.mjs): commander needs it only to spawn executable subcommands, which
// rfs does not declare, so the module is required the first time one of its members is read.
'use strict';

module.exports = new Proxy(
  {},
  {
    get(_target, name) {
      return require('node:child_process')[name];
    },
  },
);
