// How a command is declared: its folder's index.ts builds the commander declaration (flags,
// defaults, help, examples) and names its code, loaded only when it runs. The code's types come
// from the declaration, so a flag that is renamed or removed there is a compile error where the
// code reads it. Only commander and types are loaded here.
import type { Command, CommandUnknownOpts } from '@commander-js/extra-typings';
import { markStandalone } from '../core/standalone.js';
import type { Context } from './context.js';

// biome-ignore lint/suspicious/noExplicitAny: any command, whatever its arguments and flags (commander's own bound)
type AnyCommand = Command<any[], any, any>;

/** What commander parsed for a command: its arguments and its own flags, typed by its declaration. */
export interface Parsed<C extends AnyCommand> {
  args: C['processedArgs'];
  flags: ReturnType<C['opts']>;
  /** The declaration itself (completion walks the tree from it). */
  command: CommandUnknownOpts;
}

/** What a command's run.ts exports: checked options from what was parsed, and the run on them. */
export interface CommandCode<P, O> {
  options(parsed: P, ctx: Context): O | Promise<O>;
  run(ctx: Context, options: O): Promise<number>;
}

/** Runs a command once the session exists; the caller reports what it throws. */
export type Execute = (ctx: Context) => Promise<number>;
/** What a command needs of the run before it starts. */
export interface Needs {
  /**
   * The command stands apart from the service (`completion`, `sandbox`): it reads no profile
   * and takes none of the global flags (core/standalone.ts). False unless said otherwise.
   */
  standalone?: boolean;
}

/** Called by a command's action: `recordings list`, `file`, … and how to run it. */
export type Dispatch = (name: string, execute: Execute, needs?: Needs) => Promise<void>;

export interface CommandDefinition {
  /** Declares the command, with its action, under `parent`; `path` is the noun above it, if any. */
  mount(parent: CommandUnknownOpts, dispatch: Dispatch, path?: string): void;
}

export function defineCommand<C extends AnyCommand, O>(
  declare: () => C,
  load: () => Promise<CommandCode<Parsed<C>, O>>,
  needs?: Needs,
): CommandDefinition {
  return {
    mount(parent, dispatch, path) {
      const command = declare();
      if (needs?.standalone === true) markStandalone(command);
      // Settings such as exitOverride, the help option and the output streams, as `.command()` copies them.
      command.copyInheritedSettings(parent);
      const name = path === undefined ? command.name() : `${path} ${command.name()}`;
      command.action(async () => {
        const parsed: Parsed<C> = { args: command.processedArgs, flags: command.opts(), command };
        await dispatch(
          name,
          async (ctx) => {
            const code = await load();
            return code.run(ctx, await code.options(parsed, ctx));
          },
          needs,
        );
      });
      parent.addCommand(command);
    },
  };
}

/** A noun: a name, aliases and a description, and the verbs under it. */
export function defineNoun(declare: () => CommandUnknownOpts, verbs: readonly CommandDefinition[]): CommandDefinition {
  return {
    mount(parent, dispatch) {
      const noun = declare();
      noun.copyInheritedSettings(parent);
      parent.addCommand(noun);
      for (const verb of verbs) verb.mount(noun, dispatch, noun.name());
    },
  };
}

/** The "Examples:" block at the end of a command's help. */
export function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
