// --jq (cli.md, Output): the real jq (jqlang/jq 1.8, compiled to WebAssembly by the jq-wasm
// package), loaded only when the flag is given. jq-wasm runs jq's own command line once per
// call, compiling the program each time (about 7 ms), so items are handed to it a batch at a
// time, as newline-separated JSON texts: jq applies the program to each input on its own, as
// `jq -c` does over a file of them, and a page of 100 costs about as much as one item.
import type { Jq } from 'jq-wasm/inline';
import { RfsError, UsageError } from '../core/errors.js';

/** A jq program that compiled; `run` gives the JSON text of each output, in order. */
export interface JqProgram {
  /**
   * Applies the program to each input (one JSON text each) and returns every output's JSON
   * text. On a runtime error, the outputs before it are passed to `partial` and a JqError thrown.
   */
  run(inputs: readonly string[], partial: (outputs: string[]) => void): string[];
}

/** An error while running the program on an item: exit 1, with jq's message (cli.md, Output). */
export class JqError extends RfsError {}

/** How jq starts the message of an error while running the program. */
const RUNTIME_ERROR = /^jq: error \(at /m;
/** jq's exit status for a program that does not compile. */
const JQ_COMPILE_ERROR = 3;

let engine: Promise<Jq> | undefined;

function load(): Promise<Jq> {
  engine ??= import('jq-wasm/inline').then((m) => m.loadJq());
  return engine;
}

/**
 * Compiles `expression` without running it on anything: an expression that does not compile
 * is a UsageError (exit 2), before any request is sent.
 */
export async function compileJq(expression: string, warn: (text: string) => void): Promise<JqProgram> {
  const jq = await load();
  // Compiled in full (jq checks every function and variable it refers to) but never run: it is
  // called only after `empty`, so `range(1e12)` costs nothing here. The newline ends a
  // trailing comment.
  const check = jq.raw(null, `def _rfs_jq: ${expression}\n; empty | _rfs_jq`, ['-n']);
  if (check.exitCode !== 0) {
    // jq's message about the program as typed: one that does not compile is never run.
    const own = jq.raw(null, expression, ['-n']);
    const stderr = own.exitCode === JQ_COMPILE_ERROR ? own.stderr : check.stderr;
    throw new UsageError(`--jq does not compile: ${jqMessage(stderr) || `jq exited with ${check.exitCode}`}`, {
      hint: "jq syntax: https://jqlang.org/manual/ — quote the program for the shell, e.g. --jq '.data[] | .id'",
    });
  }

  const once = (input: string): { outputs: string[]; warnings: string; error?: string } => {
    const result = jq.raw(input, expression, ['-c']);
    const outputs = lines(result.stdout);
    // Over several inputs jq's exit status is that of the last one: an error on an earlier
    // input shows only as its message.
    if (result.exitCode === 0 && !RUNTIME_ERROR.test(result.stderr)) return { outputs, warnings: result.stderr };
    return { outputs, warnings: '', error: jqMessage(result.stderr) || `jq exited with ${result.exitCode}` };
  };
  // debug, stderr and the like: jq's own messages, passed on to stderr.
  const pass = (warnings: string): void => {
    if (warnings !== '') warn(warnings.trimEnd());
  };

  return {
    run(inputs, partial) {
      if (inputs.length === 0) return [];
      const all = once(inputs.join('\n'));
      if (all.error === undefined) {
        pass(all.warnings);
        return all.outputs;
      }
      // jq goes on after an error with the next input; rfs stops at the first failing item,
      // so the batch is run again one item at a time to print exactly what came before it.
      for (const input of inputs) {
        const one = once(input);
        pass(one.warnings);
        partial(one.outputs);
        if (one.error !== undefined) throw new JqError(`--jq: ${one.error}`);
      }
      // Only a program that depends on more than its item (input, inputs) gets here.
      throw new JqError(`--jq: ${all.error}`);
    },
  };
}

function lines(stdout: string): string[] {
  return stdout === '' ? [] : stdout.split('\n').filter((line) => line !== '');
}

/** jq's stderr without its location in a stdin that only rfs sees. */
function jqMessage(stderr: string): string {
  return stderr
    .trim()
    .replace(/ \(at \/dev\/stdin:\d+\)/g, '')
    .replace(/\njq: \d+ compile errors?$/, '')
    .replace(/\s*\n\s*/g, ' ');
}
