// The jq engine (--jq) is 1.3 MB: it must never be part of what every command loads. Only the
// worker thread of --jq loads it: from node_modules (the ES module build), from the file beside
// the CommonJS bundle, or from the single executable's asset. Checked on dist/,
// which `npm test` builds first.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));
/** A string of jq-wasm's own code, present wherever the engine is. */
const MARKER = 'jq-wasm/inline: wasmURL is not supported';

/** The files `entry` loads at start: itself and every module it imports statically. */
function startupFiles(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // `import"./x.js"` and `from"./x.js"`; `import("./x.js")` is a dynamic import, left alone.
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*)["'](\.{1,2}\/[^"']+)["']/g)) visit(join(dirname(file), m[1] as string));
  };
  visit(entry);
  return [...seen];
}

describe('the jq engine stays out of start-up', () => {
  it('is not in the ES module build at all: the worker thread of --jq loads it from node_modules', () => {
    const startup = startupFiles(join(DIST, 'main.js'));
    expect(startup.length).toBeGreaterThan(1);
    for (const file of startup) expect(readFileSync(file, 'utf8').includes(MARKER), file).toBe(false);
    const chunks = readdirSync(join(DIST, 'chunks')).filter((f) => readFileSync(join(DIST, 'chunks', f), 'utf8').includes(MARKER));
    expect(chunks).toHaveLength(0);
  });

  it('is a file beside the CommonJS bundle, not inside it', () => {
    expect(readFileSync(join(DIST, 'bundle', 'rfs.js'), 'latin1').includes(MARKER)).toBe(false);
    expect(existsSync(join(DIST, 'bundle', 'jq-engine.cjs'))).toBe(true);
    expect(readFileSync(join(DIST, 'bundle', 'jq-engine.cjs'), 'latin1').includes(MARKER)).toBe(true);
  });

  it.each([
    ['the CommonJS bundle', {}],
    ['the ES module build', { NODE_DISABLE_COMPILE_CACHE: '1' }],
  ])('loads and compiles with --jq from %s (a bad program: exit 2, nothing sent)', (_name, env) => {
    const run = spawnSync(process.execPath, [BIN, 'recordings', 'list', '--jq', '.a | foo(1)'], {
      encoding: 'utf8',
      // An address nothing listens on: the program is refused before anything is sent.
      env: {
        PATH: process.env.PATH ?? '',
        RFS_CONFIG_DIR: '/nonexistent-rfs-jq',
        RFS_BASE_URL: 'http://127.0.0.1:9',
        RFS_API_KEY: 'service_pk_jqLAZY_0000000000000000',
        ...env,
      },
    });
    expect(run.stderr).toContain('error: --jq does not compile: jq: error: foo/1 is not defined');
    expect(run.status).toBe(2);
  });
});
