// An esbuild plugin for both builds (dist/ and the single executable), and the one place where
// rfs changes how a dependency is bundled: undici's lib/dispatcher/client.js requires its HTTP/2
// module at load, and that module node:http2, although rfs never offers h2 (allowH2 is off).
// Here client.js gets src/lazy/connect-h2.cjs instead, the same function loading the real module
// on its first call. It saves about 15 ms of every command that talks to the service
// (bench/README.md, "Kept"); test/build/lazy-requires.test.ts fails if a new undici moves or
// renames what it replaces, and the build fails if client.js no longer requires it.
//
// Removed after measuring each on its own (less than 5 ms on one page of `recordings list`
// each, bench/README.md): node:http read lazily by rewriting undici's source text, stand-ins
// for node:assert in undici and node:child_process in commander, and the editor prompt of
// @inquirer/prompts (rfs now depends on the three prompts it shows).
import { fileURLToPath } from 'node:url';

const CONNECT_H2 = fileURLToPath(new URL('../src/lazy/connect-h2.cjs', import.meta.url));
const CLIENT = /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/;

export const lazyRequires = {
  name: 'rfs-lazy-requires',
  setup(build) {
    let clientLoaded = false;
    let replaced = false;
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (!CLIENT.test(args.importer)) return undefined;
      replaced = true;
      return { path: CONNECT_H2 };
    });
    build.onLoad({ filter: CLIENT }, () => {
      clientLoaded = true;
      return undefined;
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && clientLoaded && !replaced) {
        throw new Error("undici's lib/dispatcher/client.js no longer requires './client-h2.js': scripts/lazy-requires.mjs needs updating");
      }
    });
  },
};
