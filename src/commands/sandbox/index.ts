// rfs sandbox: the declaration; the code is in run.ts. The defaults shown are the sandbox's own
// (src/sandbox/config.ts, a small module with no dependencies), so help and behaviour agree.
import { Command } from '@commander-js/extra-typings';
import { DEFAULTS, SCENARIOS, SCENARIO_NAMES } from '../../sandbox/config.js';
import { choiceOption } from '../choices.js';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('sandbox')
    .description('run the local implementation of the whole service (docs/sandbox.md)')
    .option('--host <host>', 'address to bind', DEFAULTS.host)
    .option('--port <port>', 'port; 0 picks a free one', String(DEFAULTS.port))
    .option('--seed <n>', 'same data and keys on every start (default: random)')
    .option('--recordings <n>', `recordings in the main workspace (default: ${DEFAULTS.recordings}, or what --data holds)`)
    .option('--data <file>', 'keep state in this file across restarts')
    .option('--fixtures <file>', 'start from this state (the --data format) or JSON list of recordings')
    .option('--rate-limit <n>', 'requests per window per workspace; 0 = none', String(DEFAULTS.rateLimit))
    .option('--rate-window <seconds>', 'rate-limit window', String(DEFAULTS.rateWindowSeconds))
    .option('--faults <rate>', 'fraction 0-1 of API requests that fail on purpose', String(DEFAULTS.faults))
    .option('--delivery-attempts <n>', 'attempts per webhook delivery', String(DEFAULTS.deliveryAttempts))
    .option('--delivery-backoff <ms>', 'first retry delay of a delivery, x4 each time', String(DEFAULTS.deliveryBackoffMs))
    .addOption(choiceOption('--scenario <name>', 'start with a prepared state (below); not with --data or --fixtures', SCENARIO_NAMES))
    .option('--allow-private-webhooks', 'allow webhook URLs on private networks')
    .option('--inspect [host:port]', 'also serve a web inspector of deliveries sent and API requests (default 127.0.0.1:8788)')
    .option('--allow-remote-control', 'bind beyond loopback without the warning (the control API has no key)')
    .addHelpText(
      'after',
      `\nScenarios:\n${SCENARIO_NAMES.map((name) => `  ${name}:\n${SCENARIOS[name].map((l) => `    ${l}`).join('\n')}`).join('\n')}`,
    )
    .addHelpText(
      'after',
      examples([
        'rfs sandbox',
        'rfs sandbox --port 0 --seed 42 --data sandbox.json',
        'rfs sandbox --faults 0.2 --rate-limit 0',
        'rfs sandbox --scenario incident --seed 42',
        'rfs sandbox --inspect',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'), { standalone: true });
