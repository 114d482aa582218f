// The command tree as shell completion needs it, read from the real commander program so that
// the scripts can never offer a command or flag that does not exist (cli.md, completion).
import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { SETTINGS } from '../config/settings.js';
import { isStandalone } from '../core/standalone.js';

export { PROFILES_HOOK } from './hook.js';

/** What may follow a flag or stand in a positional slot. */
export type ValueCompletion =
  | { kind: 'choices'; values: string[] }
  /** A path on disk: `<file>`, `<path>`. */
  | { kind: 'file' }
  /** A saved profile's name, read from the config file when completing (`rfs __complete-profiles`). */
  | { kind: 'profile' }
  /**
   * The value of a setting (`config set <key> <value>`): what it may be depends on the key before
   * it, so the choices are given per key; a key without choices offers nothing.
   */
  | { kind: 'setting'; choices: Record<string, string[]> }
  /** Free text (an id, a URL, a number): nothing to offer. */
  | { kind: 'any' };

// commander does not say that a value names a profile: these flags and arguments do (cli.md,
// auth: `-p <TAB>`, `auth switch <TAB>`).
const PROFILE_OPTIONS = new Set(['--profile']);
const PROFILE_ARGUMENTS = new Set(['auth switch:name']);
// …nor that a value is a setting's: this argument's choices follow the key before it (cli.md,
// completion: `config set <key> <TAB>` offers that setting's values).
const SETTING_VALUE_ARGUMENTS = new Set(['config set:value']);

function settingChoices(): Record<string, string[]> {
  const choices: Record<string, string[]> = {};
  for (const setting of SETTINGS) if ('choices' in setting && setting.choices) choices[setting.key] = [...setting.choices];
  return choices;
}

export interface CompletionOption {
  /** `-o`, when there is one. */
  short: string | undefined;
  /** `--output`, when there is one. */
  long: string | undefined;
  description: string;
  /** The placeholder of the value, `format` for `<format>`; undefined for a switch. */
  valueName: string | undefined;
  /** Undefined for a switch, which takes no value. */
  value: ValueCompletion | undefined;
  /** May be given more than once (`--event a --event b`). */
  repeatable: boolean;
}

export interface CompletionArgument {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  value: ValueCompletion;
}

export interface CompletionCommand {
  name: string;
  /** Accepted when typed, never offered: `rfs rec<TAB>` must complete to `recordings` alone. */
  aliases: string[];
  description: string;
  /** Names from the root down, e.g. ['recordings', 'list']; [] for the root. */
  path: string[];
  /** This command's own options; for the root, the global ones (valid at every level). */
  options: CompletionOption[];
  arguments: CompletionArgument[];
  subcommands: CompletionCommand[];
  /** Takes none of the global flags (core/standalone.ts): none is offered under it. */
  standalone: boolean;
}

export interface TreeOptions {
  /** Extra words `rfs help <TAB>` offers at the root besides the command names (help topics). */
  helpTopics?: readonly string[];
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

// commander does not say that a value is a path; the placeholder does (`<file>`, `<path>`).
function valueFor(placeholder: string, choices: readonly string[] | undefined): ValueCompletion {
  if (choices && choices.length > 0) return { kind: 'choices', values: [...choices] };
  if (/\b(file|path|dir)\b/i.test(placeholder)) return { kind: 'file' };
  return { kind: 'any' };
}

function optionOf(option: Option): CompletionOption {
  const takesValue = option.required || option.optional;
  const placeholder = /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1]?.replace(/\.\.\.$/, '');
  const profile = option.long !== undefined && PROFILE_OPTIONS.has(option.long);
  return {
    short: option.short,
    long: option.long,
    description: firstLine(option.description),
    valueName: takesValue ? (placeholder ?? 'value') : undefined,
    value: takesValue ? (profile ? { kind: 'profile' } : valueFor(placeholder ?? '', option.argChoices)) : undefined,
    // commander has no "repeatable" bit for an option with a custom accumulator; the help text
    // of such options says "(repeatable)", which is what a user reads too.
    repeatable: option.variadic || /\brepeatable\b/i.test(option.description),
  };
}

function argumentOf(argument: Argument, path: string[], extraChoices?: readonly string[]): CompletionArgument {
  const slot = `${path.join(' ')}:${argument.name()}`;
  const value: ValueCompletion = PROFILE_ARGUMENTS.has(slot)
    ? { kind: 'profile' }
    : SETTING_VALUE_ARGUMENTS.has(slot)
      ? { kind: 'setting', choices: settingChoices() }
      : valueFor(argument.name(), extraChoices ?? argument.argChoices);
  return {
    name: argument.name(),
    description: firstLine(argument.description),
    required: argument.required,
    variadic: argument.variadic,
    value,
  };
}

function nodeOf(command: Command, path: string[], o: TreeOptions): CompletionCommand {
  const help = command.createHelp();
  const visible = help.visibleCommands(command);
  const realNames = command.commands.filter((c) => visible.includes(c)).map((c) => c.name());
  const subcommands = visible.map((sub): CompletionCommand => {
    // The implicit `help [command]` is not in command.commands; its argument is a sibling's name.
    if (!command.commands.includes(sub)) {
      const words = path.length === 0 ? [...realNames, ...(o.helpTopics ?? [])] : realNames;
      return {
        ...leafShape(sub, [...path, sub.name()]),
        arguments: sub.registeredArguments.map((a) => argumentOf(a, [...path, sub.name()], words)),
      };
    }
    return nodeOf(sub, [...path, sub.name()], o);
  });
  return {
    ...leafShape(command, path),
    subcommands,
  };
}

function leafShape(command: Command, path: string[]): CompletionCommand {
  const help = command.createHelp();
  return {
    name: command.name(),
    aliases: command.aliases(),
    description: firstLine(command.description()),
    path,
    options: help.visibleOptions(command).map(optionOf),
    arguments: command.registeredArguments.map((a) => argumentOf(a, path)),
    subcommands: [],
    standalone: isStandalone(command),
  };
}

export function buildCompletionTree(program: Command, o: TreeOptions = {}): CompletionCommand {
  return nodeOf(program, [], o);
}

/** Every spelling of an option: `-o`, `--output`. */
export function flagsOf(option: CompletionOption): string[] {
  return [option.short, option.long].filter((f): f is string => f !== undefined);
}

/**
 * The options of a command other than the global ones it repeats (commander gives every command
 * its own `-h, --help`); global options are completed everywhere, so listing them twice would
 * only duplicate them.
 */
export function ownOptions(command: CompletionCommand, root: CompletionCommand): CompletionOption[] {
  if (command === root) return root.options;
  const global = new Set(root.options.flatMap(flagsOf));
  return command.options.filter((opt) => !flagsOf(opt).every((f) => global.has(f)));
}

/** The root and every command below it, parents before children. */
export function allCommands(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}

/** A word a script can hold without quoting trouble; anything else is a bug in the tree. */
export function assertPlainWord(word: string): string {
  if (!/^[A-Za-z0-9_.:@%+,/=-]+$/.test(word)) throw new Error(`completion: unexpected word ${JSON.stringify(word)}`);
  return word;
}

/** A word in POSIX single quotes (bash and zsh): a quote inside is closed, escaped and reopened. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
