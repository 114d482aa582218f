// An IO over in-memory streams, for tests that say explicitly whether each stream is a terminal.
import { PassThrough } from 'node:stream';
import type { IO } from '../../src/core/io.js';

export interface BufferIOOptions {
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  stdinIsTTY?: boolean;
  env?: NodeJS.ProcessEnv;
  columns?: number;
  /** Text on stdin, which then ends; without it stdin is empty and ended. */
  stdin?: string;
}

export interface BufferIO {
  io: IO;
  stdout(): string;
  stderr(): string;
}

/**
 * A stream marked as a terminal also gets the cursor methods of tty.WriteStream (ora calls
 * them), writing the same escape sequences, so a test sees what a terminal would receive.
 */
function capture(isTTY: boolean, columns: number): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => chunks.push(chunk));
  if (isTTY) {
    Object.assign(stream, {
      isTTY: true,
      columns,
      rows: 24,
      cursorTo(x: number) {
        return stream.write(`\x1b[${x + 1}G`);
      },
      moveCursor(dx: number, dy: number) {
        let seq = '';
        if (dx) seq += dx > 0 ? `\x1b[${dx}C` : `\x1b[${-dx}D`;
        if (dy) seq += dy > 0 ? `\x1b[${dy}B` : `\x1b[${-dy}A`;
        return seq ? stream.write(seq) : true;
      },
      clearLine(dir: number) {
        return stream.write(dir < 0 ? '\x1b[1K' : dir > 0 ? '\x1b[0K' : '\x1b[2K');
      },
    });
  }
  return { stream, text: () => chunks.join('') };
}

export function bufferIO(o: BufferIOOptions = {}): BufferIO {
  const columns = o.columns ?? 80;
  const out = capture(o.stdoutIsTTY ?? false, columns);
  const err = capture(o.stderrIsTTY ?? false, columns);
  const stdin = new PassThrough();
  stdin.end(o.stdin ?? '');
  if (o.stdinIsTTY) Object.assign(stdin, { isTTY: true });
  return {
    io: {
      stdin,
      stdout: out.stream,
      stderr: err.stream,
      stdinIsTTY: o.stdinIsTTY ?? false,
      stdoutIsTTY: o.stdoutIsTTY ?? false,
      stderrIsTTY: o.stderrIsTTY ?? false,
      columns,
      env: o.env ?? {},
    },
    stdout: out.text,
    stderr: err.text,
  };
}
