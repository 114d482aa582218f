// rfs webhooks trigger: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { secretEnvOption, secretFileOption } from '../../webhook-secret.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('trigger')
    .description('send a signed test delivery to a receiver, as the service would, and show its answer')
    .requiredOption('--to <url>', 'the receiver: https, or http to this machine')
    .addOption(secretEnvOption())
    .addOption(secretFileOption())
    .option('--recording <id>', 'build the payload from this recording, fetched with your key (default: a built-in example)')
    .option('--payload <file>', 'send these bytes as the body (a fixture the inspector downloaded), signed now')
    .option('--duplicate', 'send the same delivery twice, as a retry or replay does')
    .option('--stale', 'sign with a timestamp 10 minutes old: the receiver must refuse it')
    .option('--bad-signature', 'sign with another secret: the receiver must refuse it')
    .addHelpText(
      'after',
      examples([
        'rfs webhooks trigger --to http://127.0.0.1:8787/ --secret-file secret.txt',
        'rfs webhooks trigger --to https://hooks.example.com/rfs --recording rec_123 --duplicate',
        'rfs webhooks trigger --to http://localhost:3000/webhooks --stale',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
