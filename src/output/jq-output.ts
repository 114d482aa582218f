// --jq on the way to stdout (cli.md, Output). A command with --jq prints ndjson, one JSON value
// per line: an item of a list as its page arrives, a single resource, the result of `api`. This
// stream takes those lines in place of stdout, runs the program on each, and prints each output
// on its own line — strings raw, as `jq -r`, everything else as compact JSON. Lines are handed
// to jq as they come (a page at a time), so --all and `api --paginate` still stream, in memory
// that does not grow with the number of items.
import { Writable } from 'node:stream';
import type { IO } from '../core/io.js';
import { UsageError } from '../core/errors.js';
import { sanitize } from '../core/sanitize.js';
import { compileJq, type JqProgram } from './jq.js';
import { writeOut } from './list-writer.js';
import { safeJson } from './safe-json.js';

/** Commands whose output is not JSON: --jq has nothing to filter there. */
const NOT_JSON = new Set(['completion', 'sandbox']);

export interface JqOutput {
  /** The run's IO with stdout replaced by the filter. */
  io: IO;
  /** Runs the program on what is left and waits for it to be written; throws a JqError. */
  finish(): Promise<void>;
  /** The error that stopped the filter, if one did: it outranks what the command saw after it. */
  failure(): unknown;
}

/** Compiles the program (a UsageError, before anything is sent) and sets the filter up. */
export async function openJqOutput(io: IO, expression: string, command: string, warn: (text: string) => void): Promise<JqOutput> {
  if (NOT_JSON.has(command.split(' ')[0] ?? '')) throw new UsageError(`--jq filters JSON output, and rfs ${command} prints none`);
  const program = await compileJq(expression, warn);
  const sink = new JqSink(io, program);
  return {
    io: { ...io, stdout: sink, stdoutIsTTY: false },
    failure: () => sink.failed,
    async finish() {
      if (sink.failed !== undefined) throw sink.failed;
      await new Promise<void>((resolve, reject) => {
        sink.once('error', reject);
        sink.end(() => resolve());
      }).catch((error: unknown) => {
        throw sink.failed ?? error;
      });
      if (sink.failed !== undefined) throw sink.failed;
    },
  };
}

class JqSink extends Writable {
  failed: unknown;
  private rest = '';

  constructor(
    private readonly io: IO,
    private readonly program: JqProgram,
  ) {
    super({ decodeStrings: false });
    // The error is kept in `failed` and reported once, by runCli; a later write sees the stream
    // destroyed and stops the command.
    this.on('error', () => undefined);
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const text = this.rest + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const end = text.lastIndexOf('\n');
    this.rest = end === -1 ? text : text.slice(end + 1);
    if (end === -1) {
      done();
      return;
    }
    this.filter(text.slice(0, end).split('\n')).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    const last = this.rest;
    this.rest = '';
    this.filter([last]).then(() => done(), done);
  }

  private async filter(lines: string[]): Promise<void> {
    const inputs = lines.filter((line) => line.trim() !== '');
    let printed = '';
    const print = (outputs: string[]): void => {
      for (const output of outputs) printed += `${this.format(output)}\n`;
    };
    try {
      print(this.program.run(inputs, print));
    } catch (error) {
      this.failed ??= error;
      if (printed !== '') await writeOut(this.io.stdout, printed);
      throw error;
    }
    if (printed !== '') await writeOut(this.io.stdout, printed);
  }

  /** jq -r: a string as its text; anything else as compact JSON, escaped as rfs's JSON is. */
  private format(output: string): string {
    const value: unknown = JSON.parse(output);
    if (typeof value !== 'string') return safeJson(value);
    return this.io.stdoutIsTTY ? sanitize(value, { multiline: true }) : value;
  }
}
