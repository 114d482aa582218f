// rfs sync: the declaration; the code is in run.ts.
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('sync')
    .description('file every COMPLETED, unsynced recording through your command, crash-safe (a journal)')
    .requiredOption('--exec <command>', 'shell command run once per recording: detail JSON on stdin, prints the external record')
    .option('--provider <p>', "external system sent with every filing (default: the profile's, see rfs config)")
    .option('--watch', 'repeat a pass every --interval seconds until Ctrl-C')
    .option('--interval <seconds>', 'seconds between passes with --watch', '60')
    .option('--listen <port>', 'also receive webhooks here; a verified recording.completed starts a pass (implies --watch)')
    .option('--secret-env <VAR>', 'with --listen: variable holding the webhook secret (default RFS_WEBHOOK_SECRET)')
    .option('--journal <path>', 'journal file (default $XDG_STATE_HOME/rfs/sync-<profile>.jsonl)')
    .option('--max-items <n>', 'handle at most this many recordings per pass')
    .option('--exec-timeout <seconds>', 'stop a command that runs longer than this', '300')
    .option('--dry-run', 'list what would be sent to the command; run, file and journal nothing')
    .addHelpText(
      'after',
      examples([
        "rfs sync --exec './file-in-crm.sh' --provider crm",
        "rfs sync --exec 'node crm.js' --provider crm --watch --interval 120",
        "RFS_WEBHOOK_SECRET=whsec_… rfs sync --exec './file-in-crm.sh' --provider crm --listen 8787",
      ]),
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
