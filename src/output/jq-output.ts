// --jq on the way to stdout (cli.md, Output). A command with --jq prints ndjson, one JSON value
// per line: an item of a list as its page arrives, a single resource, the result of `api`. This
// stream takes those bytes in place of stdout and hands them to jq as its stdin (./jq.ts); what
// jq prints goes to stdout as it comes. A write completes when jq has taken the bytes, so the
// command never runs ahead of the program by more than a chunk: --all streams, in bounded memory.
import { Writable } from 'node:stream';
import { CancelError } from '../core/errors.js';
import type { IO } from '../core/io.js';
import { sanitize } from '../core/sanitize.js';
import { type JqOutcome, type JqRun, startJq } from './jq.js';
import { writeOut } from './list-writer.js';
import { onPageMarks } from './page-marks.js';

export interface JqOutput {
  /** The run's IO with stdout replaced by the filter. */
  io: IO;
  /** Ends jq's input and waits for it to end; throws the JqError that stopped it. */
  finish(): Promise<void>;
  /** The error that stopped the filter, if one did: it outranks what the command saw after it. */
  failure(): unknown;
  /** jq's exit status once it has ended on its own (end of input, halt, halt_error). */
  exitStatus(): number | undefined;
  /**
   * Whether jq's own stderr text (halt_error's string, `stderr`) ended without a newline, as
   * jq 1.8 leaves it: what rfs writes on stderr after it must start a line of its own.
   */
  stderrMidLine(): boolean;
}

/** Compiles the program (a UsageError, before anything is sent) and sets the filter up. */
export async function openJqOutput(io: IO, expression: string, signal: AbortSignal): Promise<JqOutput> {
  const decoder = new TextDecoder();
  let midLine = false;
  const run = await startJq(expression, {
    out: (bytes) => {
      if (!io.stdoutIsTTY) return writeOut(io.stdout, bytes);
      // On a terminal, text from the server is shown escaped (cli.md, Output).
      return writeOut(io.stdout, sanitize(decoder.decode(bytes, { stream: true }), { multiline: true }));
    },
    err: (text) => {
      if (text !== '') midLine = !text.endsWith('\n');
      io.stderr.write(text);
    },
  });
  // Ctrl-C ends jq whatever the program is doing (`repeat(.)` never reads again).
  const interrupt = (): void => run.kill();
  signal.addEventListener('abort', interrupt, { once: true });
  const sink = new JqSink(run);
  // Where each page of an --all starts in jq's input: the cursor to resume from after an error.
  const pages: { firstLine: number; cursor: string | undefined }[] = [];
  onPageMarks(sink, (firstLine, cursor) => pages.push({ firstLine, cursor }));
  const errorOf = (outcome: JqOutcome | undefined): unknown => {
    if (outcome === undefined || !('error' in outcome)) return undefined;
    const error = outcome.error;
    // gh's --jq sees a whole page, so `.data[] | .id` is a gh habit; here the program runs on
    // each item, which has no `data`: jq fails at run time on null.
    if (error.hint === undefined && /^\s*\.(data|meta)\b/.test(expression) && /\bnull\b/.test(error.message)) {
      error.hint = `the program runs on each item, not on the whole answer: --jq '.id', not --jq '.data[] | .id'`;
    }
    // jq names the line of the item it failed on: that item's page was not all handled.
    const line = /\(at <stdin>:(\d+)\)/.exec(error.message);
    if (line !== null && error.resumeCursor === undefined) {
      const page = pages.findLast((p) => p.firstLine <= Number(line[1]));
      if (page?.cursor !== undefined) error.resumeCursor = page.cursor;
    }
    return error;
  };
  return {
    io: { ...io, stdout: sink, stdoutIsTTY: false },
    failure: () => (signal.aborted ? new CancelError('interrupted') : errorOf(run.outcome())),
    stderrMidLine: () => midLine,
    exitStatus: () => {
      const outcome = run.outcome();
      return outcome !== undefined && 'exit' in outcome && !signal.aborted ? outcome.exit : undefined;
    },
    async finish() {
      try {
        await new Promise<void>((resolve) => {
          if (sink.writableFinished || sink.destroyed) resolve();
          else sink.end(() => resolve());
          sink.once('error', () => resolve());
        });
        const outcome = await run.end();
        if (signal.aborted) throw new CancelError('interrupted');
        const error = errorOf(outcome);
        if (error !== undefined) throw error;
      } finally {
        signal.removeEventListener('abort', interrupt);
      }
    },
  };
}

/** The error a write sees once jq has ended: the command stops as it does at `| head`. */
function closed(): NodeJS.ErrnoException {
  return Object.assign(new Error('jq has ended'), { code: 'EPIPE' });
}

class JqSink extends Writable {
  constructor(private readonly run: JqRun) {
    super({ decodeStrings: true });
    // The failure is kept by the run and reported once, by runCli.
    this.on('error', () => undefined);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.run.feed(chunk).then((taken) => {
      done(taken ? undefined : closed());
    }, done);
  }
}
