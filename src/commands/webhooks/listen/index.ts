// rfs webhooks listen: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { secretEnvOption, secretFileOption, toleranceOption } from '../../webhook-secret.js';
import { choiceListOption } from '../../choices.js';
import { WEBHOOK_EVENTS } from '../../../shared/vocabulary.js';
import { defineCommand, examples, type Parsed } from '../../define.js';

const declare = () =>
  new Command('listen')
    .description('receive deliveries locally, verify each signature and print one line per delivery (Ctrl-C stops)')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port; 0 picks a free one', '8787')
    .addOption(secretEnvOption())
    .addOption(secretFileOption())
    .addOption(toleranceOption())
    .option('--forward-to <url>', 'pass valid deliveries on to this local URL and answer with its status')
    .option('--subscribe', 'create a subscription for this receiver, verify with its secret, delete it on stop')
    .option('--public-url <url>', 'with --subscribe: the https URL of a tunnel in front of this receiver')
    .option('--inspect [host:port]', 'also serve a web inspector of every delivery (default 127.0.0.1:8788)')
    .option('--history <file>', 'with --inspect: keep deliveries in this file (default: one per port in the state folder)')
    .addOption(choiceListOption('--event <name>', 'with --subscribe: event to subscribe to (repeatable)', WEBHOOK_EVENTS))
    .addHelpText(
      'after',
      examples([
        'RFS_WEBHOOK_SECRET=whsec_… rfs webhooks listen',
        'rfs webhooks listen --port 0 --secret-file secret.txt -o ndjson | jq .recordingId',
        'rfs webhooks listen --secret-env CRM_HOOK_SECRET --forward-to http://127.0.0.1:3000/webhooks',
        'rfs webhooks listen --subscribe --forward-to http://127.0.0.1:3000/webhooks',
        'rfs webhooks listen --subscribe --forward-to http://127.0.0.1:3000/webhooks --inspect',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
