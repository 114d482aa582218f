// A choice among a few named things (auth switch's profiles), only where a person can answer:
// elsewhere the command fails with exit 2 and says what to pass instead.
import type { Session } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { canPrompt } from '../core/io.js';
import { ask } from './ask.js';

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
  return ask(ctx, (p, on) => p.select({ message, choices, default: o.initial }, on));
}
