// scripts/lazy-requires.mjs, the esbuild plugin both builds use: undici's HTTP/2 module, and
// node:http2 with it, is loaded on first use only, still works then, and a new undici that moves
// or renames what the plugin replaces fails here (and the build) instead of quietly costing the
// start-up again.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { lazyRequires } from '../../scripts/lazy-requires.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const work = mkdtempSync(join(tmpdir(), 'rfs-lazy-requires-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Bundles `source` (resolved from `dir`) as one CommonJS file with the plugin, and runs it. */
async function bundleAndRun(
  source: string,
  dir = ROOT,
): Promise<{ status: number | null; stdout: string; stderr: string; inputs: string[] }> {
  const outfile = join(work, `out-${Math.random().toString(36).slice(2)}.cjs`);
  const result = await build({
    stdin: { contents: source, resolveDir: dir },
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    metafile: true,
    plugins: [lazyRequires],
    logLevel: 'silent',
  });
  const r = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, inputs: Object.keys(result.metafile.inputs) };
}

const LOADED = "const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);";

describe('lazy-requires', () => {
  it("replaces undici's HTTP/2 module in its client, and loads node:http2 only when h2 is used", async () => {
    const r = await bundleAndRun(`${LOADED}
      const Client = require('undici/lib/dispatcher/client.js');
      const client = new Client('http://127.0.0.1:9');
      const before = loaded('http2');
      client.destroy();
      // What client.js calls for an h2 connection: the stand-in loads the real function.
      const connectH2 = require('./src/lazy/connect-h2.cjs');
      try { connectH2({}, {}); } catch {}
      console.log(JSON.stringify({ before, after: loaded('http2') }));`);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true });
    expect(r.inputs.some((path) => path.endsWith('src/lazy/connect-h2.cjs'))).toBe(true);
    expect(r.inputs.filter((path) => /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(path))).toHaveLength(1);
  });

  it('stands in for the function undici exports from the file it names', () => {
    const connectH2 = require('undici/lib/dispatcher/client-h2.js') as unknown;
    expect(typeof connectH2).toBe('function');
    expect((connectH2 as (a: unknown, b: unknown) => unknown).length).toBe(2);
  });

  it("fails the build when undici's client no longer requires its HTTP/2 module by that name", async () => {
    const dir = join(work, 'changed');
    mkdirSync(join(dir, 'node_modules', 'undici', 'lib', 'dispatcher'), { recursive: true });
    writeFileSync(
      join(dir, 'node_modules', 'undici', 'lib', 'dispatcher', 'client.js'),
      "const connectH2 = require('./h2-client.js')\nmodule.exports = connectH2\n",
    );
    writeFileSync(join(dir, 'node_modules', 'undici', 'lib', 'dispatcher', 'h2-client.js'), 'module.exports = () => {}\n');
    await expect(bundleAndRun("require('undici/lib/dispatcher/client.js')", dir)).rejects.toThrow(/no longer requires '.\/client-h2.js'/);
  });

  it('bundles the prompts rfs shows without the editor prompt and iconv-lite', async () => {
    const result = await build({
      entryPoints: ['src/prompt/inquirer.ts'],
      absWorkingDir: ROOT,
      write: false,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('@inquirer/confirm'))).toBe(true);
    expect(inputs.filter((path) => /iconv-lite|chardet|@inquirer[\\/](editor|prompts)/.test(path))).toEqual([]);
  });
});
