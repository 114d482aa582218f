// rfs sync: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { choiceOption } from '../choices.js';
import { type CommandDefinition, defineCommand, examples, type Parsed } from '../define.js';
import status from './status/index.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

const declare = () =>
  new Command('sync')
    .description('file every COMPLETED, unsynced recording through your command, crash-safe (a journal)')
    // Required, but checked by options() (run.ts): commander checks a parent's required options
    // for its subcommands too, and `sync status` runs no command.
    .option('--exec <command>', 'shell command run once per recording: detail JSON on stdin, prints the external record')
    .option('--provider <p>', "external system sent with every filing (default: the profile's, see rfs config)")
    .option('--watch', 'repeat a pass every --interval seconds until Ctrl-C')
    .option('--interval <seconds>', 'seconds between passes with --watch', '60')
    .option('--listen <port>', 'also receive webhooks here; a verified recording.completed starts a pass (implies --watch)')
    .option('--secret-env <VAR>', 'with --listen: variable holding the webhook secret (default RFS_WEBHOOK_SECRET)')
    .option('--journal <path>', 'journal file (default $XDG_STATE_HOME/rfs/sync-<profile>.jsonl)')
    .option('--max-items <n>', 'handle at most this many recordings per pass; listing stops once reached')
    .option('--concurrency <n>', 'run up to this many commands at once (1 to 16); requests stay paced by --rate', '1')
    .addOption(
      choiceOption(
        '--order <order>',
        'listed: as the API lists them, filing from the first page; priority: URGENT first, oldest first within each (lists every page first)',
        ['listed', 'priority'] as const,
      ).default('listed' as const),
    )
    .option('--exec-timeout <seconds>', 'stop a command that runs longer than this', '300')
    .option(
      '--exec-env <NAME>',
      'pass this variable (or PREFIX*) to the command beside PATH, HOME, the locale and proxies (repeatable; RFS_API_KEY only by name)',
      collect,
    )
    .option('--dry-run', 'list what would be sent to the command; run, file and journal nothing')
    .option('--max-attempts <n>', 'park a recording after this many failures of its command in a row', '10')
    .option('--retry-parked', 'run parked recordings again (each gets --max-attempts more tries)')
    .option('--metrics <[host:]port>', 'serve Prometheus /metrics and /healthz here (host 127.0.0.1 unless given)')
    .addOption(
      choiceOption('--log-format <format>', 'stderr as text, or one JSON object per event', ['text', 'json'] as const).default(
        'text' as const,
      ),
    )
    .addHelpText(
      'after',
      examples([
        "rfs sync --exec './file-in-crm.sh' --provider crm",
        "rfs sync --exec 'node crm.js' --provider crm --watch --interval 120",
        "rfs sync --exec './file-in-crm.sh' --provider crm --concurrency 4 --order priority",
        "RFS_WEBHOOK_SECRET=whsec_… rfs sync --exec './file-in-crm.sh' --provider crm --listen 8787",
        "rfs sync --exec './file-in-crm.sh' --provider crm --watch --metrics 9464 --log-format json",
        "rfs sync --exec './file-in-crm.sh' --provider crm --exec-env CRM_TOKEN --exec-env 'CRM_*'",
        'rfs sync status',
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
const sync = defineCommand(declare, () => import('./run.js'));

/**
 * `rfs sync` runs the loop and `rfs sync status` reads its journal: commander runs the action of
 * `sync` unless its first operand names a subcommand, so both live on one command.
 */
export default {
  mount(parent, dispatch, path) {
    sync.mount(parent, dispatch, path);
    const command = parent.commands.find((c) => c.name() === 'sync');
    if (command === undefined) throw new Error('rfs sync was not mounted');
    status.mount(command, dispatch, 'sync');
    // The flags of `sync` are its own, not global ones for `sync status`: its help lists only
    // the options of rfs itself under "Global Options".
    const verb = command.commands.find((c) => c.name() === 'status');
    verb?.configureHelp({
      ...verb.configureHelp(),
      visibleGlobalOptions: (cmd) => (cmd.parent?.parent ? cmd.parent.parent.options.filter((o) => !o.hidden) : []),
    });
  },
} satisfies CommandDefinition;
