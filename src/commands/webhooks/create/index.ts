// rfs webhooks create: the declaration; the code is in run.ts.
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { WEBHOOK_EVENTS } from '../../../shared/vocabulary.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const declare = () =>
  new Command('create')
    .description('subscribe a URL to events; prints the signing secret once')
    .requiredOption('--url <url>', 'receiving address (https, or http to loopback)')
    .addOption(
      new Option('--event <name>', 'event to send (repeatable)')
        .choices(WEBHOOK_EVENTS)
        .argParser((value: string, previous: WebhookEvent[] | undefined) => {
          // A custom parser replaces commander's choices check, so it checks them itself.
          const event = WEBHOOK_EVENTS.find((e) => e === value);
          if (event === undefined) throw new InvalidArgumentError(`Allowed choices are ${WEBHOOK_EVENTS.join(', ')}.`);
          return [...(previous ?? []), event];
        }),
    )
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
