// An esbuild plugin for both builds (dist/ and the single executable): a few modules that
// dependencies require at load time, for code that rfs never or rarely runs, are handed a small
// stand-in that requires the real module on first use. Each was measured with a CPU profile
// of one page of `recordings list`:
// - undici's client.js requires its HTTP/2 module, and that module node:http2: about 19 ms,
//   although rfs never offers h2 (allowH2 is off). If h2 is ever used, it still works.
// - commander's command.js requires node:child_process (and with it net, dgram and the rest):
//   about 6 ms, for spawning executable subcommands, which rfs does not have.
import { fileURLToPath } from 'node:url';

const standIn = (path) => fileURLToPath(new URL(`../src/lazy/${path}`, import.meta.url));

/** [the importing file, the specifier it requires, the stand-in that replaces it]. */
const STAND_INS = [
  [/undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/, './client-h2.js', standIn('connect-h2.cjs')],
  [/commander[\\/]lib[\\/]command\.js$/, 'node:child_process', standIn('child-process.cjs')],
];

export const lazyRequires = {
  name: 'rfs-lazy-requires',
  setup(build) {
    for (const [importer, specifier, path] of STAND_INS) {
      const filter = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      build.onResolve({ filter }, (args) => (importer.test(args.importer) ? { path } : undefined));
    }
  },
};
