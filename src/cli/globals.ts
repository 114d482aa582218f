// The global flags: declared once here (help texts and defaults), and resolved once into the
// GlobalOptions every command receives: the flag, then the environment, then the selected
// profile's setting (`rfs config`), then the default (config/settings.ts).
import { type Command, type CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS, type GlobalOptions } from '../core/context.js';
import { choiceOption } from '../commands/choices.js';
import { UsageError } from '../core/errors.js';
import { type IO, colorEnabled, isTruthy } from '../core/io.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RATE,
  DEFAULT_TIMEOUT_SECONDS,
  type ProfileSettings,
  givenOptions,
  resolveSettingValues,
} from '../config/settings.js';

export function declareGlobals(program: Command) {
  return program
    .addOption(new Option('-p, --profile <name>', 'config profile to use (env RFS_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'service root; /api/v1 is appended (env RFS_BASE_URL)'))
    .addOption(choiceOption('-o, --output <format>', 'output format (default: table on a terminal, json otherwise)', OUTPUT_FORMATS))
    .addOption(new Option('--json', 'same as -o json'))
    .addOption(new Option('--no-color', 'no ANSI colour (also NO_COLOR; FORCE_COLOR forces it)'))
    .addOption(new Option('-q, --quiet', 'no spinners, progress or notices on stderr'))
    .addOption(new Option('-v, --verbose', 'one stderr line per HTTP attempt, secrets redacted (also RFS_DEBUG=1)'))
    .addOption(new Option('--timeout <seconds>', 'per-attempt timeout in seconds').default(String(DEFAULT_TIMEOUT_SECONDS)))
    .addOption(
      new Option('--max-retries <n>', 'retries after the first attempt, retryable failures only').default(String(DEFAULT_MAX_RETRIES)),
    )
    .addOption(new Option('--rate <n>', 'client-side pacing in requests per minute; 0 = unpaced').default(String(DEFAULT_RATE)))
    .addOption(new Option('-y, --yes', 'answer yes to confirmations'))
    .addOption(new Option('--jq <expr>', 'filter JSON output through a jq program, per item of a list (strings print raw)'));
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
