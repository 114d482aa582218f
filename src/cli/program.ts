// The command tree of cli.md. Only commander and plain data are loaded here: each command's
// code is imported when it runs, so `rfs --help` costs little more than starting Node.
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import {
  DELIVERY_STATUSES,
  INCLUDES,
  RECORDING_STATUSES,
  SYNC_STATES,
  WEBHOOK_EVENTS,
} from '../shared/vocabulary.js';
import { OUTPUT_FORMATS, type Context } from '../commands/context.js';

/** What a command module exports: flags in, an exit code out. */
export interface CommandModule {
  run(ctx: Context, invocation: Invocation): Promise<number>;
}

export interface Invocation {
  /** Positional arguments (variadic ones flattened). */
  args: string[];
  /** This command's own flags, as commander parsed them (strings, booleans, arrays). */
  opts: Record<string, unknown>;
  /** The global flags, wherever they were written on the line. */
  globals: Record<string, unknown>;
  /** `recordings list`, `file`, … */
  name: string;
}

export type Dispatch = (name: string, load: () => Promise<CommandModule>, invocation: Omit<Invocation, 'name'>) => Promise<void>;

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

export interface ProgramOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

/** The top-level commands and their aliases. */
const TOP_LEVEL: Record<string, readonly string[]> = {
  auth: [],
  recordings: ['recording'],
  file: [],
  webhooks: ['webhook'],
  deliveries: ['delivery'],
  'verify-signature': [],
  sync: [],
  completion: [],
  sandbox: [],
};
/** Global flags that take a value as the next word; every other global is a switch. */
const GLOBAL_WITH_VALUE = new Set(['-p', '--profile', '--base-url', '-o', '--output', '--timeout', '--max-retries', '--rate']);
const GLOBAL_SWITCHES = new Set(['--json', '--no-color', '-q', '--quiet', '-v', '--verbose', '-y', '--yes']);

/**
 * The top-level command that `argv` runs, when that is certain: only known global flags come
 * before it. The program is then built with that command's subtree only (the others are names
 * and descriptions): the whole tree costs about 2 ms of every start-up. Undefined (build
 * everything) for help, for completion, which walks the whole tree, and for anything unusual.
 */
export function commandToRun(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (GLOBAL_WITH_VALUE.has(word)) i++;
    else if (GLOBAL_SWITCHES.has(word) || (word.startsWith('--') && GLOBAL_WITH_VALUE.has(word.split('=')[0] ?? ''))) continue;
    else if (word.startsWith('-')) return undefined;
    else {
      const name = Object.keys(TOP_LEVEL).find((n) => n === word || TOP_LEVEL[n]?.includes(word));
      return name === 'completion' ? undefined : name;
    }
  }
  return undefined;
}

export function buildProgram(dispatch: Dispatch, output?: ProgramOutput, only?: string): Command {
  const program = new Command('rfs');
  /** Whether the subcommands, arguments and flags of this top-level command are declared. */
  const builds = (name: string): boolean => only === undefined || only === name;
  const top = (name: string): Command => {
    const cmd = program.command(name);
    for (const alias of TOP_LEVEL[name] ?? []) cmd.alias(alias);
    return cmd;
  };
  // Set before any subcommand exists: commander copies these settings into each one it creates.
  program.exitOverride();
  // Every command's help also lists the global flags (-o, --profile, --verbose…).
  program.configureHelp({ showGlobalOptions: true });
  if (output) program.configureOutput({ writeOut: output.writeOut, writeErr: output.writeErr });
  program
    .description('The command-line client of the Recording Filing Service, with a local sandbox of it.')
    .version(RFS_VERSION, '--version', 'print the version and exit')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command, or a topic: exit-codes, environment')
    .showSuggestionAfterError(true)
    .addOption(new Option('-p, --profile <name>', 'config profile to use (env RFS_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'service root; /api/v1 is appended (env RFS_BASE_URL)'))
    .addOption(
      new Option('-o, --output <format>', 'output format (default: table on a terminal, json otherwise)').choices(OUTPUT_FORMATS),
    )
    .addOption(new Option('--json', 'same as -o json'))
    .addOption(new Option('--no-color', 'no ANSI colour (also NO_COLOR; FORCE_COLOR forces it)'))
    .addOption(new Option('-q, --quiet', 'no spinners, progress or notices on stderr'))
    .addOption(new Option('-v, --verbose', 'one stderr line per HTTP attempt, secrets redacted (also RFS_DEBUG=1)'))
    .addOption(new Option('--timeout <seconds>', 'per-attempt timeout in seconds').default('30'))
    .addOption(new Option('--max-retries <n>', 'retries after the first attempt, retryable failures only').default('5'))
    .addOption(new Option('--rate <n>', 'client-side pacing in requests per minute; 0 = unpaced').default('120'))
    .addOption(new Option('-y, --yes', 'answer yes to confirmations'))
    .addHelpText(
      'after',
      `\nGetting started:\n  $ rfs sandbox                     # a local service with sandbox keys (another terminal)\n  $ rfs auth login                  # save a key in a profile\n  $ rfs recordings list             # completed recordings not filed yet\n\nMore: rfs <command> --help, rfs help exit-codes, rfs help environment\n`,
    );

  const leaf = (cmd: Command, name: string, load: () => Promise<CommandModule>): Command =>
    cmd.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      const opts = self.opts();
      const args = (params.slice(0, -2) as (string | string[] | undefined)[]).flatMap((a) =>
        a === undefined ? [] : Array.isArray(a) ? a : [a],
      );
      await dispatch(name, load, { args, opts, globals: self.optsWithGlobals() });
    });

  // auth
  const auth = top('auth').description('manage API keys in config profiles');
  if (builds('auth')) {
    leaf(
      auth
        .command('login')
        .description('save an API key in a profile (asks for it, masked; or reads it from stdin)')
        .option('--with-key', 'read the key from stdin instead of asking (for scripts)')
        .addHelpText(
          'after',
          examples([
            'rfs auth login',
            'printf %s "$KEY" | rfs auth login --with-key --profile ci --base-url https://api.example.com',
          ]),
        ),
      'auth login',
      () => import('../commands/auth/login.js'),
    );
    leaf(
      auth
        .command('status')
        .description('show every profile (or one) with its redacted key and whether the key works')
        .addHelpText('after', examples(['rfs auth status', 'rfs auth status --profile ci -o json'])),
      'auth status',
      () => import('../commands/auth/status.js'),
    );
    leaf(
      auth
        .command('switch')
        .description('make a profile the default')
        .argument('<name>', 'profile name')
        .addHelpText('after', examples(['rfs auth switch ci'])),
      'auth switch',
      () => import('../commands/auth/switch.js'),
    );
    leaf(
      auth
        .command('logout')
        .description('forget a profile and its key')
        .addHelpText('after', examples(['rfs auth logout', 'rfs auth logout --profile ci'])),
      'auth logout',
      () => import('../commands/auth/logout.js'),
    );
  }

  // recordings
  const recordings = top('recordings').description('list and fetch recordings');
  if (builds('recordings')) {
    leaf(
      recordings
        .command('list')
        .alias('ls')
        .description('list recordings (by default COMPLETED and not yet filed)')
        .addOption(new Option('--status <status>', 'recording status').choices(RECORDING_STATUSES).default('COMPLETED'))
        .addOption(new Option('--sync-state <state>', 'filing state').choices(SYNC_STATES).default('unsynced'))
        .option('--updated-since <when>', 'ISO 8601 time, or a duration back from now: 90s, 15m, 24h, 7d')
        .addOption(new Option('--include <what>', 'add block content to each item').choices(INCLUDES))
        .option('--limit <n>', 'page size, 1-100', '50')
        .option('--cursor <cursor>', 'start at this page (meta.nextCursor of an earlier call)')
        .option('--all', 'follow cursors through every page')
        .option('--max-items <n>', 'stop after this many items (with --all)')
        .addHelpText(
          'after',
          examples([
            'rfs recordings list',
            'rfs recordings list --status ARCHIVED --sync-state all --updated-since 7d',
            'rfs recordings list --all -o ndjson | jq -r .id',
          ]),
        ),
      'recordings list',
      () => import('../commands/recordings/list.js'),
    );
    leaf(
      recordings
        .command('get')
        .description('show one recording: metadata, filing history, notes, documents and transcript')
        .argument('<id>', 'recording id')
        .addOption(new Option('--include <what>', 'also return the rich-text JSON of each block').choices(['contentJson']))
        .addHelpText('after', examples(['rfs recordings get rec_123', 'rfs recordings get rec_123 --include contentJson -o json'])),
      'recordings get',
      () => import('../commands/recordings/get.js'),
    );
  }

  // file
  const file = top('file').description('mark a recording filed in an external system (POST filings), or a batch with --from');
  if (builds('file')) {
    leaf(
      file
        .argument('[id]', 'recording id')
        .option('--provider <p>', 'external system (default provider for --from lines)')
        .option('--external-id <x>', 'id of the record created externally')
        .option('--external-url <u>', 'link to the external record')
        .option('--filed-at <iso>', 'when it was filed (default: now, by the server)')
        .option('--metadata <json>', 'provider references as a JSON object, or @file to read it from a file')
        .option('--from <file>', 'a batch: one JSON object per line, from a file or - for stdin')
        .option('--fail-fast', 'stop a --from batch at the first failure')
        .addHelpText(
          'after',
          examples([
            'rfs file rec_123 --provider crm --external-id CASE-42 --external-url https://crm.example.com/42',
            'rfs file --from filings.ndjson --provider crm',
            'jq -c \'{id, externalId: .id}\' recs.ndjson | rfs file --from - --provider crm',
          ]),
        ),
      'file',
      () => import('../commands/file.js'),
    );
  }

  // webhooks
  const webhooks = top('webhooks').description('manage webhook subscriptions');
  if (builds('webhooks')) {
    leaf(
      webhooks
        .command('create')
        .description('subscribe a URL to events; prints the signing secret once')
        .requiredOption('--url <url>', 'receiving address (https, or http to loopback)')
        .addOption(
          new Option('--event <name>', 'event to send (repeatable)')
            .choices(WEBHOOK_EVENTS)
            .argParser((value: string, previous: string[] | undefined) => {
              // A custom parser replaces commander's choices check, so it checks them itself.
              if (!(WEBHOOK_EVENTS as readonly string[]).includes(value)) {
                throw new InvalidArgumentError(`Allowed choices are ${WEBHOOK_EVENTS.join(', ')}.`);
              }
              return [...(previous ?? []), value];
            }),
        )
        .option('--idempotency-key <key>', '8-255 letters, digits, . _ : - (default: rfs-<uuid>, reused on retries)')
        .addHelpText(
          'after',
          examples([
            'rfs webhooks create --url https://hooks.example.com/rfs',
            'rfs webhooks create --url https://hooks.example.com/rfs --idempotency-key deploy-2026-11-22',
          ]),
        ),
      'webhooks create',
      () => import('../commands/webhooks/create.js'),
    );
    leaf(
      webhooks
        .command('list')
        .alias('ls')
        .description('list webhook subscriptions')
        .option('--limit <n>', 'page size, 1-50', '50')
        .option('--cursor <cursor>', 'start at this page')
        .option('--all', 'follow cursors through every page')
        .addHelpText('after', examples(['rfs webhooks list', 'rfs webhooks list --all -o ndjson'])),
      'webhooks list',
      () => import('../commands/webhooks/list.js'),
    );
    leaf(
      webhooks
        .command('delete')
        .alias('rm')
        .description('remove a subscription (asks first on a terminal)')
        .argument('<id>', 'subscription id')
        .addHelpText('after', examples(['rfs webhooks delete wh_123', 'rfs webhooks delete wh_123 --yes'])),
      'webhooks delete',
      () => import('../commands/webhooks/delete.js'),
    );
    leaf(
      webhooks
        .command('listen')
        .description('receive deliveries locally, verify each signature and print one line per delivery (Ctrl-C stops)')
        .option('--host <host>', 'address to bind', '127.0.0.1')
        .option('--port <port>', 'port; 0 picks a free one', '8787')
        .option('--secret-env <VAR>', 'environment variable holding the secret (default RFS_WEBHOOK_SECRET)')
        .option('--secret-file <path>', 'file holding the secret')
        .option('--tolerance <seconds>', 'allowed clock difference, both ways', '300')
        .option('--forward-to <url>', 'pass valid deliveries on to this local URL and answer with its status')
        .addHelpText(
          'after',
          examples([
            'RFS_WEBHOOK_SECRET=whsec_… rfs webhooks listen',
            'rfs webhooks listen --port 0 --secret-file secret.txt -o ndjson | jq .recordingId',
            'rfs webhooks listen --secret-env CRM_HOOK_SECRET --forward-to http://127.0.0.1:3000/webhooks',
          ]),
        ),
      'webhooks listen',
      () => import('../commands/webhooks/listen.js'),
    );
  }

  // deliveries
  const deliveries = top('deliveries').description('inspect and replay webhook deliveries');
  if (builds('deliveries')) {
    leaf(
      deliveries
        .command('list')
        .alias('ls')
        .description('list webhook deliveries, newest first')
        .addOption(new Option('--status <status>', `delivery status (${DELIVERY_STATUSES.join(', ')} in the sandbox)`))
        .option('--subscription <id>', 'only this subscription')
        .option('--limit <n>', 'rows, 1-50', '50')
        .addHelpText('after', examples(['rfs deliveries list --status FAILED', 'rfs deliveries list --subscription wh_123 -o json'])),
      'deliveries list',
      () => import('../commands/deliveries/list.js'),
    );
    leaf(
      deliveries
        .command('replay')
        .description('send deliveries again, by id or every FAILED one')
        .argument('[delivery-id...]', 'deliveries to replay')
        .option('--all-failed', 'replay every FAILED delivery')
        .option('--subscription <id>', 'with --all-failed: only this subscription')
        .option('--dry-run', 'with --all-failed: only list what would be replayed')
        .addHelpText(
          'after',
          examples(['rfs deliveries replay dlv_123 dlv_456', 'rfs deliveries replay --all-failed --dry-run', 'rfs deliveries replay --all-failed --yes']),
        ),
      'deliveries replay',
      () => import('../commands/deliveries/replay.js'),
    );
  }

  // verify-signature
  const verify = top('verify-signature').description('check a webhook signature against the raw body (exit 0 valid, 1 not)');
  if (builds('verify-signature')) {
    leaf(
      verify
        .option('--timestamp <unix>', 'the x-service-timestamp value')
        .option('--signature <sha256=hex>', 'the x-service-signature value')
        .option('--headers <file>', 'read both values from a raw header dump instead')
        .option('--payload <file>', 'raw body: a file, or - for stdin', '-')
        .option('--secret-env <VAR>', 'environment variable holding the secret (default RFS_WEBHOOK_SECRET)')
        .option('--secret-file <path>', 'file holding the secret')
        .option('--tolerance <seconds>', 'allowed clock difference, both ways', '300')
        .option('--now <unix>', 'check as if at this time')
        .addHelpText(
          'after',
          examples([
            'rfs verify-signature --timestamp 1700000000 --signature sha256=57b1… --payload body.json',
            'curl -sD headers.txt … | rfs verify-signature --headers headers.txt --secret-file secret.txt',
          ]),
        ),
      'verify-signature',
      () => import('../commands/verify-signature.js'),
    );
  }

  // sync
  const sync = top('sync').description('file every COMPLETED, unsynced recording through your command, crash-safe (a journal)');
  if (builds('sync')) {
    leaf(
      sync
        .requiredOption('--exec <command>', 'shell command run once per recording: detail JSON on stdin, prints the external record')
        .requiredOption('--provider <p>', 'external system sent with every filing')
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
        ),
      'sync',
      () => import('../commands/sync.js'),
    );
  }

  // completion
  const completion = top('completion').description('print the shell completion script');
  if (builds('completion')) {
    leaf(
      completion
        .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
        .addHelpText('after', examples(['rfs completion bash > ~/.local/share/bash-completion/completions/rfs', 'rfs completion zsh > "${fpath[1]}/_rfs"'])),
      'completion',
      () => import('../commands/completion.js'),
    );
  }

  // sandbox
  const sandbox = top('sandbox').description('run the local implementation of the whole service (see sandbox.md)');
  if (builds('sandbox')) {
    leaf(
      sandbox
        .option('--host <host>', 'address to bind', '127.0.0.1')
        .option('--port <port>', 'port; 0 picks a free one', '4010')
        .option('--seed <n>', 'same data and keys on every start (default: random)')
        .option('--recordings <n>', 'recordings in the main workspace (default: 25, or what --data holds)')
        .option('--data <file>', 'keep state in this file across restarts')
        .option('--fixtures <file>', 'start from this state (the --data format) or JSON list of recordings')
        .option('--rate-limit <n>', 'requests per window per workspace; 0 = none', '120')
        .option('--rate-window <seconds>', 'rate-limit window', '60')
        .option('--faults <rate>', 'fraction 0-1 of API requests that fail on purpose', '0')
        .option('--delivery-attempts <n>', 'attempts per webhook delivery', '5')
        .option('--delivery-backoff <ms>', 'first retry delay of a delivery, x4 each time', '1000')
        .option('--allow-private-webhooks', 'allow webhook URLs on private networks')
        .addHelpText('after', examples(['rfs sandbox', 'rfs sandbox --port 0 --seed 42 --data sandbox.json', 'rfs sandbox --faults 0.2 --rate-limit 0'])),
      'sandbox',
      () => import('../commands/sandbox-command.js'),
    );
  }

  return program;
}
