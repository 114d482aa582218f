// rfs verify-signature: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { secretEnvOption, secretFileOption, toleranceOption } from '../webhook-secret.js';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('verify-signature')
    .description('check a webhook signature against the raw body (exit 0 valid, 1 not)')
    .option('--timestamp <unix>', 'the x-service-timestamp value')
    .option('--signature <sha256=hex>', 'the x-service-signature value')
    .option('--headers <file>', 'read both values from a raw header dump instead')
    .option('--payload <file>', 'raw body: a file, or - for stdin', '-')
    .addOption(secretEnvOption())
    .addOption(secretFileOption())
    .addOption(toleranceOption())
    .option('--now <unix>', 'check as if at this time')
    .addHelpText(
      'after',
      examples([
        'rfs verify-signature --timestamp 1700000000 --signature sha256=57b1… --payload body.json',
        'curl -sD headers.txt … | rfs verify-signature --headers headers.txt --secret-file secret.txt',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
