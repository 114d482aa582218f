// Help, as gh gives it (cli.md, Global options): on stdout, exit 0; `rfs help <command> [<sub>]`
// shows that command's help; an unknown topic is exit 2 with the known ones. The global options
// are listed once, in `rfs --help`; every other command ends with one line that points there.
import type { EventEmitter } from 'node:events';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../core/errors.js';
import { sanitize } from '../core/sanitize.js';
import { isStandalone } from '../core/standalone.js';

const GLOBAL_FOOTER = 'Global options (-o, --json, -p, -q, -v, -y, …): see rfs --help';

/** Ends every command's help but the root's with the pointer to the global options. */
export function addGlobalFooters(program: CommandUnknownOpts): void {
  const visit = (command: CommandUnknownOpts): void => {
    for (const sub of command.commands) {
      // After an Examples block, which ends with a blank line; else after a blank line of its own.
      const spaced = (sub as unknown as EventEmitter).listenerCount('afterHelp') > 0 ? GLOBAL_FOOTER : `\n${GLOBAL_FOOTER}`;
      // A standalone command takes none of them (core/standalone.ts).
      if (!isStandalone(sub)) sub.addHelpText('after', spaced);
      visit(sub);
    }
  };
  visit(program);
}

/**
 * Defaults in help as the user types them: commander quotes a string default
 * (`(default: "60")`), and the number flags keep theirs as strings so that one parser checks
 * both. A description that an option gives for its default is kept.
 */
export function plainDefaults(program: CommandUnknownOpts): void {
  const visit = (command: CommandUnknownOpts): void => {
    for (const option of command.options)
      if (typeof option.defaultValue === 'string' && option.defaultValueDescription === undefined)
        option.defaultValueDescription = option.defaultValue;
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
}

/**
 * commander's "(Did you mean …?)" may name an alias (`rfs recordz` → "recording"): name the
 * command instead, once, as help and completion do (aliases are accepted, never offered).
 */
export function suggestNames(program: CommandUnknownOpts, text: string): string {
  const names = new Map<string, string>();
  const visit = (command: CommandUnknownOpts): void => {
    for (const sub of command.commands) {
      for (const alias of sub.aliases()) if (!names.has(alias)) names.set(alias, sub.name());
      visit(sub);
    }
  };
  visit(program);
  return text.replace(/\(Did you mean (one of )?([^?]+)\?\)/, (_all, _oneOf: string | undefined, list: string) => {
    const words = [...new Set(list.split(', ').map((word) => names.get(word) ?? word))];
    return words.length === 1 ? `(Did you mean ${words[0]}?)` : `(Did you mean one of ${words.join(', ')}?)`;
  });
}

function find(parent: CommandUnknownOpts, word: string): CommandUnknownOpts | undefined {
  return parent.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/**
 * The argv that shows the help of `rfs help <words…>`: the command's path and --help. Throws a
 * UsageError (exit 2) naming the known commands and topics for a word that names neither.
 */
export function helpArgv(program: CommandUnknownOpts, words: string[], topics: readonly string[]): string[] {
  const path: string[] = [];
  let at = program;
  for (const word of words) {
    const next = find(at, word);
    if (next === undefined) {
      const known = [...at.commands.filter((c) => !isHidden(c)).map((c) => c.name()), ...(at === program ? topics : [])];
      const where = path.length > 0 ? ` under "rfs ${path.join(' ')}"` : '';
      throw new UsageError(`no help for "${sanitize(word)}"${where}: known topics are ${known.join(', ')}`, {
        hint: `rfs help ${[...path, '<topic>'].join(' ')}`,
      });
    }
    path.push(next.name());
    at = next;
  }
  return [...path, '--help'];
}

function isHidden(command: CommandUnknownOpts): boolean {
  return (command as unknown as { _hidden?: boolean })._hidden === true;
}
