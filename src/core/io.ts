// The standard streams and what is known about them, passed into every command so that tests
// can say "terminal" or "not a terminal" explicitly (gh's IOStreams). Time is not here: the
// run's one clock is RunOptions.clock (core/clock.ts), which output's "now" reads as well.
import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';

export interface IO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Width of the terminal on stdout, for tables; 80 when unknown. Read anew each time: windows are resized. */
  columns: number;
  env: NodeJS.ProcessEnv;
  /**
   * The run's known secrets taken out of one text (cli/run.ts sets it with stdout's redaction):
   * for writers that lay text out before it reaches stdout, since a table that wraps or cuts a
   * value would split a secret into pieces that stdout's writer could no longer recognise.
   */
  redactText?: (text: string) => string;
}

export function processIO(): IO {
  return {
    // Reading process.stdin builds its stream (for a file or /dev/null, an fs.ReadStream and the
    // fs/promises module with it: about 5 ms of every start-up here), so it is left to the few
    // commands that read their input, and whether it is a terminal is asked of fd 0 directly.
    get stdin(): Readable {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: isatty(0),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    get columns(): number {
      return process.stdout.columns || Number(process.env.COLUMNS) || 80;
    },
    env: process.env,
  };
}

/**
 * `io` with some members replaced. A spread would read the live members once and keep that
 * value: `columns` (a table's width, re-read on every page and after a resize) and `stdin`
 * (whose stream is built only when a command reads it); their getters are kept instead.
 */
export function withIO(io: IO, changes: Partial<IO>): IO {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(io)) as IO;
  for (const [key, value] of Object.entries(changes)) {
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Prompts need both ends of a terminal, and RFS_NO_INPUT=1 turns them off (cli.md). */
export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stderrIsTTY && !isTruthy(io.env.RFS_NO_INPUT);
}

export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Colour: never with NO_COLOR (any value) or --no-color; forced by FORCE_COLOR; else on a terminal. */
export function colorEnabled(io: IO, flag: boolean | undefined, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  if (flag === false) return false;
  if (io.env.NO_COLOR !== undefined) return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return stream === 'stdout' ? io.stdoutIsTTY : io.stderrIsTTY;
}
