// Confirmations and other prompts, bound to the command's streams (never the process's), and
// only where a person can answer: elsewhere the command fails with exit 2 and names the flag.
import type { Session } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { canPrompt } from '../core/io.js';
import { sanitize } from '../core/sanitize.js';
import { ask } from './ask.js';

/** Resolves true when confirmed (or --yes), false when the person says no. */
export async function confirmAction(ctx: Session, message: string): Promise<boolean> {
  if (ctx.globals.yes) return true;
  if (!canPrompt(ctx.io)) {
    throw new UsageError(`${message.replace(/\?$/, '')}: confirmation needed, but there is no terminal to ask on`, {
      hint: 'pass --yes to confirm',
    });
  }
  // Escaped here too: a prompt is a place where server text (an id, a URL) reaches the terminal.
  return ask(ctx, (p, on) => p.confirm({ message: sanitize(message), default: false }, on));
}
