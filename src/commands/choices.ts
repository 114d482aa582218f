// Enumerated flags (--status, --sync-state, --include, -o, --event…): one declaration for all,
// so that every one accepts any letter case and hands on the API's spelling (cli.md, Global
// options). Commander still knows the choices, for help and completion.
import { Argument, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { readChoice } from '../core/flags.js';

function refuse(values: readonly string[]): never {
  throw new InvalidArgumentError(`Allowed choices are ${values.join(', ')}.`);
}

/** An option whose value is one of `values`, matched in any letter case. */
export function choiceOption<const F extends string, const T extends string>(flags: F, description: string, values: readonly T[]) {
  return new Option(flags, description).choices(values).argParser((raw: string): T => readChoice(raw, values) ?? refuse(values));
}

/** A repeatable option whose values are each one of `values`, in any letter case. */
export function choiceListOption<const F extends string, const T extends string>(flags: F, description: string, values: readonly T[]) {
  return new Option(flags, description)
    .choices(values)
    .argParser((raw: string, previous: T[] | undefined): T[] => [...(previous ?? []), readChoice(raw, values) ?? refuse(values)]);
}

/** An argument that is one of `values`, matched in any letter case (`rfs completion BASH`). */
export function choiceArgument<const N extends string, const T extends string>(name: N, description: string, values: readonly T[]) {
  return new Argument(name, description).choices(values).argParser((raw: string): T => readChoice(raw, values) ?? refuse(values));
}
