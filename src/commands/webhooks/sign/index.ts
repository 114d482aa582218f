// rfs webhooks sign: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { secretEnvOption, secretFileOption } from '../../webhook-secret.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('sign')
    .description('sign a body as the service does and print the four x-service-* headers')
    .option('--payload <file>', 'raw body: a file, or - for stdin', '-')
    .addOption(secretEnvOption())
    .addOption(secretFileOption())
    .option('--timestamp <unix>', 'sign as of this time, in whole Unix seconds (default: now)')
    .addHelpText(
      'after',
      examples([
        'rfs webhooks sign --payload body.json --secret-file secret.txt',
        'rfs webhooks sign --payload body.json --timestamp 1700000000 -o json',
        'rfs webhooks sign --payload body.json | curl -H @- -H "content-type: application/json" --data-binary @body.json http://127.0.0.1:8787/',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
