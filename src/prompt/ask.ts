// One prompt, shown the one way rfs shows them: on the command's streams (stdin and stderr,
// never the process's, so runCli's IO and a test's buffers are what it reads and writes), with
// the command's Ctrl-C, and with @inquirer loaded only now that a person is asked something.
import type { Readable, Writable } from 'node:stream';
import type { Session } from '../core/context.js';
import { CancelError } from '../core/errors.js';

/** The prompts rfs shows (src/prompt/inquirer.ts). */
export type Prompts = typeof import('./inquirer.js');

/** Where a prompt reads and writes, and what cancels it: @inquirer's context argument. */
export interface PromptStreams {
  input: Readable;
  output: Writable;
  signal: AbortSignal;
}

/**
 * Shows the prompt `show` builds and resolves with its answer. Ctrl-C or Escape at it
 * (@inquirer's ExitPromptError, or AbortPromptError when the signal fires) is the command's
 * interruption, exit 130, not a bug.
 */
export async function ask<T>(ctx: Session, show: (prompts: Prompts, on: PromptStreams) => Promise<T>): Promise<T> {
  const prompts = await import('./inquirer.js');
  try {
    return await show(prompts, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
  } catch (error) {
    if (error instanceof Error && /Exit|Abort/.test(error.name)) throw new CancelError('cancelled at the prompt');
    throw error;
  }
}
