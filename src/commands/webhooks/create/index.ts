// rfs webhooks create: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceListOption } from '../../choices.js';
import { WEBHOOK_EVENTS } from '../../../shared/vocabulary.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('create')
    .description('subscribe a URL to events; prints the signing secret once')
    .requiredOption('--url <url>', 'receiving address (https, or http to loopback)')
    .addOption(choiceListOption('--event <name>', 'event to send (repeatable)', WEBHOOK_EVENTS))
    .option('--idempotency-key <key>', '8-255 letters, digits, . _ : - (default: rfs-<uuid>, reused on retries)')
    .addHelpText(
      'after',
      examples([
        'rfs webhooks create --url https://hooks.example.com/rfs',
        'rfs webhooks create --url https://hooks.example.com/rfs --idempotency-key deploy-2026-11-22',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
