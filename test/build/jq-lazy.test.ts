// The jq engine (--jq) is 1.3 MB: it must never be part of what every command loads. Only the
// worker thread of --jq loads it: from the file beside the CommonJS bundle, or from the single
// executable's asset. Checked on dist/, which `npm test` builds first.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/rfs.js', import.meta.url));
/** A string of jq-wasm's own code, present wherever the engine is. */
const MARKER = 'jq-wasm/inline: wasmURL is not supported';

describe('the jq engine stays out of start-up', () => {
  it('is a file beside the CommonJS bundle, not inside it', () => {
    expect(readFileSync(join(DIST, 'bundle', 'rfs.cjs'), 'latin1').includes(MARKER)).toBe(false);
    expect(existsSync(join(DIST, 'bundle', 'jq-engine.cjs'))).toBe(true);
    expect(readFileSync(join(DIST, 'bundle', 'jq-engine.cjs'), 'latin1').includes(MARKER)).toBe(true);
  });

  it.each([
    ['compiled with its code cache', []],
    ['required by Node for --verbose', ['-v']],
  ])('loads and compiles with --jq from the bundle %s (a bad program: exit 2, nothing sent)', (_name, flags) => {
    const run = spawnSync(process.execPath, [BIN, 'recordings', 'list', ...flags, '--jq', '.a | foo(1)'], {
      encoding: 'utf8',
      // An address nothing listens on: the program is refused before anything is sent.
      env: {
        PATH: process.env.PATH ?? '',
        RFS_CONFIG_DIR: '/nonexistent-rfs-jq',
        RFS_BASE_URL: 'http://127.0.0.1:9',
        RFS_API_KEY: 'service_pk_jqLAZY_0000000000000000',
      },
    });
    expect(run.stderr).toContain('error: --jq does not compile: jq: error: foo/1 is not defined');
    expect(run.status).toBe(2);
  });
});
