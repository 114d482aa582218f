// An esbuild plugin for both builds (dist/ and the single executable): a few modules that
// dependencies require at load time, for code that rfs never or rarely runs, are loaded on
// first use instead, or, for one that rfs never calls, left out. Each was measured with a CPU profile of one page of `recordings list`:
// - undici's client.js requires its HTTP/2 module, and that module node:http2: about 19 ms,
//   although rfs never offers h2 (allowH2 is off). If h2 is ever used, it still works.
// - commander's command.js requires node:child_process (and with it net, dgram and the rest):
//   about 6 ms, for spawning executable subcommands, which rfs does not have.
// - undici's modules require node:assert (its AssertionError, diff printer and colours, about
//   2 ms) to check invariants with assert(value): the stand-in checks the value itself.
// - @inquirer/prompts re-exports its editor prompt, which rfs never shows: with iconv-lite and
//   chardet it is a third of the CommonJS bundle (about 560 KB read at every start). It is
//   replaced by a function that says so, and left out of the bundles.
// - undici's core/util.js and dispatcher/client.js require node:http (its agent, client and
//   server, about 3 ms) for an instanceof test when a stream is destroyed and for the default
//   header size limit, which rfs always sets (src/api/client.ts).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const standIn = (path) => fileURLToPath(new URL(`../src/lazy/${path}`, import.meta.url));

/** [the importing file, the specifier it requires, the stand-in that replaces it]. */
const STAND_INS = [
  [/undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/, './client-h2.js', standIn('connect-h2.cjs')],
  [/commander[\\/]lib[\\/]command\.js$/, 'node:child_process', standIn('child-process.cjs')],
  [/undici[\\/]lib[\\/]/, 'node:assert', standIn('assert.cjs')],
  [/@inquirer[\\/]prompts[\\/]/, '@inquirer/editor', standIn('no-editor.cjs')],
];

/**
 * [the file, and the exact texts replaced in it]. Where a module reads node:http at load, its
 * text is changed to read it when needed; if a new undici changes these lines, the build fails
 * here instead of quietly loading node:http again.
 */
const REWRITES = [
  [
    /undici[\\/]lib[\\/]core[\\/]util\.js$/,
    [
      ["const { IncomingMessage } = require('node:http')", "const nodeHttp = () => require('node:http')"],
      ['Object.getPrototypeOf(stream).constructor === IncomingMessage', 'Object.getPrototypeOf(stream).constructor === nodeHttp().IncomingMessage'],
    ],
  ],
  [
    /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    [
      ["const http = require('node:http')", "const nodeHttp = () => require('node:http')"],
      [
        "const getDefaultNodeMaxHeaderSize = http &&\n  http.maxHeaderSize &&\n  Number.isInteger(http.maxHeaderSize) &&\n  http.maxHeaderSize > 0\n  ? () => http.maxHeaderSize\n  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
        "const getDefaultNodeMaxHeaderSize = () => {\n  const { maxHeaderSize } = nodeHttp()\n  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize\n  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')\n}",
      ],
    ],
  ],
];

export const lazyRequires = {
  name: 'rfs-lazy-requires',
  setup(build) {
    for (const [importer, specifier, path] of STAND_INS) {
      const filter = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      build.onResolve({ filter }, (args) => (importer.test(args.importer) ? { path } : undefined));
    }
    for (const [file, replacements] of REWRITES) {
      build.onLoad({ filter: file }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        for (const [from, to] of replacements) {
          if (text.split(from).length !== 2) throw new Error(`${args.path}: expected this text exactly once, to load node:http lazily: ${from}`);
          text = text.replace(from, to);
        }
        // Any use of the old bindings left would now fail at run time.
        const code = text.replace(/'[^'\n]*'/g, "''");
        if (/\bhttp\.|(?<!\.)\bIncomingMessage\b/.test(code)) throw new Error(`${args.path}: uses node:http in a way the rewrite does not cover`);
        return { contents: text, loader: 'js' };
      });
    }
  },
};
