// The global flags: declared once here (help texts and defaults), and resolved once into the
// GlobalOptions every command receives (flag, then environment, then the terminal's answer).
import { type Command, Option } from '@commander-js/extra-typings';
import { OUTPUT_FORMATS, type GlobalOptions } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { numberFlag } from '../core/flags.js';
import { type IO, colorEnabled, isTruthy } from '../core/io.js';

export function declareGlobals(program: Command) {
  return program
    .addOption(new Option('-p, --profile <name>', 'config profile to use (env RFS_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'service root; /api/v1 is appended (env RFS_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format (default: table on a terminal, json otherwise)').choices(OUTPUT_FORMATS))
    .addOption(new Option('--json', 'same as -o json'))
    .addOption(new Option('--no-color', 'no ANSI colour (also NO_COLOR; FORCE_COLOR forces it)'))
    .addOption(new Option('-q, --quiet', 'no spinners, progress or notices on stderr'))
    .addOption(new Option('-v, --verbose', 'one stderr line per HTTP attempt, secrets redacted (also RFS_DEBUG=1)'))
    .addOption(new Option('--timeout <seconds>', 'per-attempt timeout in seconds').default('30'))
    .addOption(new Option('--max-retries <n>', 'retries after the first attempt, retryable failures only').default('5'))
    .addOption(new Option('--rate <n>', 'client-side pacing in requests per minute; 0 = unpaced').default('120'))
    .addOption(new Option('-y, --yes', 'answer yes to confirmations'));
}

export type GlobalFlags = ReturnType<ReturnType<typeof declareGlobals>['opts']>;

export function resolveGlobals(flags: GlobalFlags, io: IO): GlobalOptions {
  // cli.md: --json with another -o is a contradiction to report, not a silent choice.
  if (flags.json === true && flags.output !== undefined && flags.output !== 'json') {
    throw new UsageError(`--json contradicts -o ${flags.output}: give one of them`);
  }
  return {
    profile: flags.profile,
    baseUrl: flags.baseUrl,
    output: flags.json === true ? 'json' : (flags.output ?? (io.stdoutIsTTY ? 'table' : 'json')),
    color: colorEnabled(io, flags.color === false ? false : undefined, 'stdout'),
    quiet: flags.quiet === true,
    verbose: flags.verbose === true || isTruthy(io.env.RFS_DEBUG),
    timeoutSeconds: numberFlag('--timeout', flags.timeout, { min: 0.001, max: 3600 }),
    maxRetries: numberFlag('--max-retries', flags.maxRetries, { min: 0, max: 100, integer: true }),
    rate: numberFlag('--rate', flags.rate, { min: 0, max: 1_000_000 }),
    yes: flags.yes === true,
  };
}
