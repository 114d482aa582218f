// Confirmations and other prompts, bound to the command's streams (never the process's), and
// only where a person can answer: elsewhere the command fails with exit 2 and names the flag.
import type { Session } from '../core/context.js';
import { CancelError, UsageError } from '../core/errors.js';
import { canPrompt } from '../core/io.js';

/** Resolves true when confirmed (or --yes), false when the person says no. */
export async function confirmAction(ctx: Session, message: string): Promise<boolean> {
  if (ctx.globals.yes) return true;
  if (!canPrompt(ctx.io)) {
    throw new UsageError(`${message.replace(/\?$/, '')}: confirmation needed, but there is no terminal to ask on`, {
      hint: 'pass --yes to confirm',
    });
  }
  const { confirm } = await import('./inquirer.js');
  try {
    return await confirm({ message, default: false }, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
  } catch (error) {
    // Ctrl-C at a prompt (ExitPromptError / AbortPromptError) is an interruption, not a bug.
    if (error instanceof Error && /Exit|Abort/.test(error.name)) throw new CancelError('cancelled at the prompt');
    throw error;
  }
}
