// --jq reaches into jq-wasm's internals (src/output/jq-wasm-internals.ts: minified import names,
// the arguments of raw()), read from one release. Any other installed version fails here,
// loudly, before it can ship with a --jq that silently reads no input.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JQ_WASM_VERSION } from '../../src/output/jq-wasm-internals.js';

const require = createRequire(import.meta.url);

/** The package.json of the jq-wasm that Node resolves (its exports do not offer the file). */
function installed(): { name: string; version: string } {
  let folder = dirname(require.resolve('jq-wasm'));
  for (;;) {
    try {
      const found = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string };
      if (found.name === 'jq-wasm') return found;
    } catch {
      // Not here: one folder up.
    }
    const up = dirname(folder);
    if (up === folder) throw new Error('no package.json of jq-wasm above its entry point');
    folder = up;
  }
}

describe('jq-wasm, whose internals --jq uses', () => {
  it('is installed at exactly the version src/output/jq-wasm-internals.ts was read from', () => {
    const { version } = installed();
    expect(
      version,
      `jq-wasm ${version} is installed, but --jq's hooks were read from ${JQ_WASM_VERSION}: check the fd_read/fd_write import names and raw()'s arguments in src/output/jq-wasm-internals.ts against this release, then update JQ_WASM_VERSION`,
    ).toBe(JQ_WASM_VERSION);
  });

  it('is pinned in package.json to that exact version, not a range', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies['jq-wasm']).toBe(JQ_WASM_VERSION);
  });
});
