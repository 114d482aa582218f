// An esbuild plugin for both builds (dist/ and the single executable): undici's client.js
// requires its HTTP/2 module at load time, and that module requires node:http2 at once, which
// costs about 19 ms of every start-up here (measured with a Module._load trace) although rfs
// never offers h2 (allowH2 is off). The plugin hands client.js a small stand-in that requires
// the real module on the first HTTP/2 connection, so HTTP/2 still works if it is ever used.
import { fileURLToPath } from 'node:url';

const STAND_IN = fileURLToPath(new URL('../src/api/lazy/connect-h2.cjs', import.meta.url));

export const lazyHttp2 = {
  name: 'rfs-lazy-http2',
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (!/undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)) return undefined;
      return { path: STAND_IN };
    });
  },
};
