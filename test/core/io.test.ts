// withIO replaces members of an IO and keeps its live ones live: the table width is read again
// after a resize (cli.md, Output), and stdin's stream is built only when a command reads it.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type IO, withIO } from '../../src/core/io.js';

function liveIO(): { io: IO; resize(columns: number): void; stdinReads: () => number } {
  let columns = 80;
  let reads = 0;
  const io = {
    get stdin() {
      reads += 1;
      return new PassThrough();
    },
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    get columns() {
      return columns;
    },
    env: {},
  } satisfies IO;
  const resize = (n: number): void => {
    columns = n;
  };
  return { io, resize, stdinReads: () => reads };
}

describe('withIO', () => {
  it('replaces what it is given and keeps the terminal width live', () => {
    const t = liveIO();
    const stdout = new PassThrough();
    const next = withIO(t.io, { stdout });
    expect(next.stdout).toBe(stdout);
    expect(next.columns).toBe(80);
    t.resize(200);
    expect(next.columns).toBe(200);
  });

  it('does not build stdin until it is read', () => {
    const t = liveIO();
    const next = withIO(t.io, { stdoutIsTTY: false });
    expect(t.stdinReads()).toBe(0);
    void next.stdin;
    expect(t.stdinReads()).toBe(1);
  });
});
