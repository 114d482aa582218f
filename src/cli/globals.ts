// The global flags, in help's order (a setting's flag as its entry in config/settings.ts SETTINGS
// declares it: text, help, choices, default), resolved once into the GlobalOptions every command
// receives: the flag, then the environment, then the selected profile's setting (`rfs config`),
// then the default (config/settings.ts).
import { type Command, type CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import type { GlobalOptions } from '../core/context.js';
import { choiceOption } from '../commands/choices.js';
import { UsageError } from '../core/errors.js';
import { type IO, colorEnabled, isTruthy } from '../core/io.js';
import { type ProfileSettings, givenOptions, resolveSettingValues, settingNamed } from '../config/settings.js';

export function declareGlobals(program: Command) {
  // A setting's flags (their text, help, choices and defaults) are declared by its entry in SETTINGS.
  const output = settingNamed('output');
  return program
    .addOption(new Option('-p, --profile <name>', 'config profile to use (env RFS_PROFILE)'))
    .addOption(textOption(settingNamed('base-url')))
    .addOption(choiceOption(output.option.flags, output.option.help, output.choices))
    .addOption(new Option(output.option.shorthand.flags, output.option.shorthand.help))
    .addOption(new Option('--no-color', 'no ANSI colour (also NO_COLOR; FORCE_COLOR forces it)'))
    .addOption(new Option('-q, --quiet', 'no spinners, progress or notices on stderr'))
    .addOption(new Option('-v, --verbose', 'one stderr line per HTTP attempt, secrets redacted (also RFS_DEBUG=1)'))
    .addOption(numberOption(settingNamed('timeout')))
    .addOption(numberOption(settingNamed('max-retries')))
    .addOption(numberOption(settingNamed('rate')))
    .addOption(new Option('-y, --yes', 'answer yes to confirmations'))
    .addOption(new Option('--jq <expr>', 'filter JSON output through a jq program, per item of a list (strings print raw)'));
}

/** A setting's flag as SETTINGS declares it. */
interface DeclaredFlag<F extends string> {
  option: { flags: F; help: string };
}

/** A setting's flag that takes any text (the rule reads it). */
function textOption<const F extends string>({ option }: DeclaredFlag<F>) {
  return new Option(option.flags, option.help);
}

/** A number setting's flag, with its default in help. */
function numberOption<const F extends string>({ option, fallback }: DeclaredFlag<F> & { fallback(): number }) {
  return new Option(option.flags, option.help).default(String(fallback()));
}

export type GlobalFlags = ReturnType<ReturnType<typeof declareGlobals>['opts']>;

/** The global flags given on the command line. */
export function givenGlobals(program: CommandUnknownOpts): Partial<GlobalFlags> {
  return givenOptions(program) as Partial<GlobalFlags>;
}

/**
 * A standalone command (core/standalone.ts: `sandbox`, `completion`) takes none of the global
 * flags: one given to it would be silently ignored, so it is exit 2 instead, naming them.
 */
export function refuseGlobals(program: CommandUnknownOpts, flags: Partial<GlobalFlags>, command: string): void {
  const given = program.options
    .filter((o) => (flags as Record<string, unknown>)[o.attributeName()] !== undefined)
    .map((o) => o.long ?? o.short ?? o.flags);
  if (given.length > 0) {
    throw new UsageError(`rfs ${command} takes none of the global flags (given: ${given.join(', ')})`, {
      hint: `its own flags: rfs ${command} --help`,
    });
  }
}

export function resolveGlobals(
  flags: Partial<GlobalFlags>,
  io: IO,
  profile: ProfileSettings = { name: '', stored: undefined },
  onProblem: (message: string) => void = () => undefined,
): GlobalOptions {
  // The service root is the connection's (config/connection.ts), resolved only by commands that connect.
  const { values, sources, problems } = resolveSettingValues(
    ['output', 'rate', 'timeout', 'max-retries', 'provider'],
    { flags, env: io.env, stdoutIsTTY: io.stdoutIsTTY },
    profile,
  );
  for (const problem of problems) onProblem(problem);
  // cli.md: --json with another -o is a contradiction to report, not a silent choice.
  if (flags.json === true && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(`--json contradicts -o ${flags.output}: give one of them`);
  }
  return {
    profile: flags.profile,
    baseUrl: flags.baseUrl,
    output: values.output,
    outputFlagged: sources.output === 'flag',
    color: colorEnabled(io, flags.color === false ? false : undefined, 'stdout'),
    quiet: flags.quiet === true,
    verbose: flags.verbose === true || isTruthy(io.env.RFS_DEBUG),
    timeoutSeconds: values.timeout,
    timeoutGiven: sources.timeout !== 'default',
    maxRetries: values['max-retries'],
    rate: values.rate,
    yes: flags.yes === true,
    provider: values.provider,
    jq: flags.jq,
  };
}
