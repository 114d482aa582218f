// A choice among a few named things (auth switch's profiles), only where a person can answer:
// elsewhere the command fails with exit 2 and says what to pass instead.
import type { Session } from '../core/context.js';
import { CancelError, UsageError } from '../core/errors.js';
import { canPrompt } from '../core/io.js';

export interface PickChoice {
  value: string;
  /** What the list shows for it. */
  name: string;
}

export async function pick(
  ctx: Session,
  message: string,
  choices: PickChoice[],
  o: { initial?: string; instead: string },
): Promise<string> {
  if (!canPrompt(ctx.io)) throw new UsageError(`${message}: no terminal to ask on`, { hint: o.instead });
  const { select } = await import('./inquirer.js');
  try {
    return await select({ message, choices, default: o.initial }, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
  } catch (error) {
    // Ctrl-C or Escape at the picker is an interruption, not a bug.
    if (error instanceof Error && /Exit|Abort/.test(error.name)) throw new CancelError('cancelled at the prompt');
    throw error;
  }
}
