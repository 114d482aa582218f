// The bundle's two scripts (scripts/commonjs-bundle.mjs, bundleSplit) must behave as one
// program: a module behind an `import()` the first script leaves out runs from the second, and
// what crosses between them keeps its meaning: default and named exports both ways (this
// package is "type": "module", where esbuild would hand an importer a CommonJS module's whole
// exports as its default: a spinner on a terminal once failed with "e is not a function"), one
// instance of a module both use (a class the second makes is an instance of the first's), and
// live bindings. Checked on a small program bundled the same way, run by Node from its files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SOURCES: Record<string, string> = {
  'main.ts': `
import sharedDefault, { Shared, counter, bump } from './shared.js';
export async function main(): Promise<void> {
  const later = await import('./later.js');
  bump();
  process.stdout.write(JSON.stringify({
    laterDefault: later.default(),
    laterNamed: later.named,
    sameClass: later.make() instanceof Shared,
    sharedDefaultFromSecond: later.callSharedDefault(),
    liveCounter: later.readCounter(),
    firstCounter: counter,
    sharedDefault: sharedDefault(),
    marker: later.MARKER,
  }));
}
void main();
`,
  'shared.ts': `
export class Shared {}
export let counter = 0;
export function bump(): void { counter += 1; }
export default function sharedDefault(): string { return 'shared default'; }
`,
  'later.ts': `
import sharedDefault, { Shared, counter } from './shared.js';
export const MARKER = 'LATER-MODULE-CODE';
export default function laterDefault(): string { return 'later default'; }
export const named = 'later named';
export const make = (): Shared => new Shared();
export const callSharedDefault = (): string => sharedDefault();
export const readCounter = (): number => counter;
`,
};

let work: string;
let run: { status: number | null; stdout: string; stderr: string };
let first: string;
let second: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rfs-bundle-split-'));
  const src = join(work, 'src');
  mkdirSync(src);
  for (const [name, text] of Object.entries(SOURCES)) writeFileSync(join(src, name), text);
  // As this package is: esbuild reads imports of CommonJS in Node's way then.
  writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
  const { bundleSplit, SECOND_SCRIPT } = await import('../../scripts/commonjs-bundle.mjs');
  const out = join(work, 'out');
  mkdirSync(out);
  await bundleSplit(join(src, 'main.ts'), join(out, 'app.cjs'), { minify: true });
  first = readFileSync(join(out, 'app.cjs'), 'latin1');
  second = readFileSync(join(out, SECOND_SCRIPT), 'latin1');
  // Run by Node's loader: with no loader handed over, the first requires the second beside it.
  run = spawnSync(process.execPath, [join(out, 'app.cjs')], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the bundle in two scripts', () => {
  it('puts the module behind the import() in the second script only', () => {
    expect(second).toContain('LATER-MODULE-CODE');
    expect(first).not.toContain('LATER-MODULE-CODE');
    // The module both use is in the first, once.
    expect(first).toContain('shared default');
    expect(second).not.toContain('shared default');
  });

  it('runs as one program: exports both ways, one instance, live bindings', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      laterDefault: 'later default',
      laterNamed: 'later named',
      sameClass: true,
      sharedDefaultFromSecond: 'shared default',
      liveCounter: 1,
      firstCounter: 1,
      sharedDefault: 'shared default',
      marker: 'LATER-MODULE-CODE',
    });
  });
});
