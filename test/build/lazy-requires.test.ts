// scripts/lazy-requires.mjs, the esbuild plugin both builds use: what it defers still works when
// first used, and an undici whose text no longer matches the rewrite fails the build.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { lazyRequires } from '../../scripts/lazy-requires.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rfs-lazy-requires-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Bundles `source` (resolved from `dir`) as one CommonJS file with the plugin, and runs it. */
async function bundleAndRun(source: string, dir = ROOT): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const outfile = join(work, `out-${Math.random().toString(36).slice(2)}.cjs`);
  await build({ stdin: { contents: source, resolveDir: dir }, outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', plugins: [lazyRequires], logLevel: 'silent' });
  const r = spawnSync(process.execPath, [outfile], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const LOADED = "const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);";

describe('lazy-requires', () => {
  it('loads node:http for undici only when a client needs its default header limit', async () => {
    const r = await bundleAndRun(`${LOADED}
      const Client = require('undici/lib/dispatcher/client.js');
      const before = loaded('http');
      const client = new Client('http://127.0.0.1:9');
      console.log(JSON.stringify({ before, after: loaded('http') }));
      client.destroy();`);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true });
  });

  it('loads node:child_process for commander only when a member is read', async () => {
    const r = await bundleAndRun(`${LOADED}
      const { Command } = require('commander');
      new Command('x').option('-a');
      const before = loaded('child_process');
      const spawn = require('node:child_process').spawn;
      console.log(JSON.stringify({ before, after: loaded('child_process'), spawn: typeof spawn }));`);
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true, spawn: 'function' });
  });

  it('checks undici\'s invariants without node:assert, and fails them with its AssertionError', async () => {
    const r = await bundleAndRun(`${LOADED}
      require('undici/lib/dispatcher/pool.js');
      const assert = require('undici/lib/core/util.js') && require('./src/lazy/assert.cjs');
      assert(true, 'holds');
      const before = loaded('assert');
      let thrown;
      try { assert(0, 'broken invariant'); } catch (error) { thrown = { name: error.name, message: error.message, code: error.code }; }
      console.log(JSON.stringify({ before, thrown }));`);
    expect(JSON.parse(r.stdout)).toEqual({ before: false, thrown: { name: 'AssertionError', message: 'broken invariant', code: 'ERR_ASSERTION' } });
  });

  it('leaves the editor prompt, and iconv-lite with it, out of the prompts rfs bundles', async () => {
    const result = await build({
      stdin: { contents: "export { confirm, editor } from '@inquirer/prompts';", resolveDir: ROOT },
      write: false,
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      metafile: true,
      plugins: [lazyRequires],
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('@inquirer/confirm'))).toBe(true);
    expect(inputs.filter((path) => /iconv-lite|chardet|@inquirer[\\/]editor/.test(path))).toEqual([]);
    const r = await bundleAndRun("const { confirm, editor } = require('@inquirer/prompts'); try { editor({}); } catch (error) { console.log(typeof confirm, error.message); }");
    expect(r.stdout.trim()).toBe('function the editor prompt is not part of rfs');
  });

  it('fails the build when undici no longer has the text it rewrites', async () => {
    const dir = join(work, 'changed');
    mkdirSync(join(dir, 'node_modules', 'undici', 'lib', 'core'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'undici', 'lib', 'core', 'util.js'), "const { IncomingMessage, STATUS_CODES } = require('node:http')\nmodule.exports = { IncomingMessage }\n");
    await expect(bundleAndRun("require('undici/lib/core/util.js')", dir)).rejects.toThrow(/expected this text exactly once, to load node:http lazily/);
  });
});
