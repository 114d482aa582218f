// rfs sync (cli.md, sync): the recommended integration pattern as one crash-safe command.
import type { Context } from '../context.js';
import { UsageError } from '../../core/errors.js';
import { numberFlag } from '../../core/flags.js';
import { execEnvNames } from '../../sync/exec-env.js';
import { parseAddress } from '../../sync/health.js';
import { defaultJournalPath } from '../../sync/journal.js';
import { runSync, type SyncOptions } from '../../sync/run.js';
import { requireFlag } from '../flags.js';
import type { Input } from './index.js';

/** The options of rfs sync: the sync's, and where its journal is (default: the profile's). */
export interface CommandOptions extends SyncOptions {
  journalPath?: string;
}

/** cli.md, sync: at most 16 commands at once. */
const MAX_CONCURRENCY = 16;

export function options({ flags }: Input, ctx: Context): CommandOptions {
  // Worded as commander words a missing required option, as it was when commander checked it.
  if (flags.exec === undefined) throw new UsageError("required option '--exec <command>' not specified");
  const command = requireFlag('--exec', flags.exec, '(the command that creates the external record)');
  const provider = requireFlag(
    '--provider',
    // The profile's default provider (`rfs config set provider`) stands in for the flag.
    flags.provider ?? ctx.globals.provider,
    '(the external system sent with every filing; or `rfs config set provider <p>`)',
  );
  const listenPort = numberFlag('--listen', flags.listen, { min: 0, max: 65535, integer: true });
  const o: CommandOptions = {
    command,
    provider,
    execTimeoutMs: numberFlag('--exec-timeout', flags.execTimeout, { min: 1, max: 86_400, integer: true }) * 1000,
    execEnv: execEnvNames(flags.execEnv ?? [], ctx.io.env),
    ...(flags.secretEnv === undefined ? {} : { execSecrets: [flags.secretEnv] }),
    maxItems: numberFlag('--max-items', flags.maxItems, { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true }),
    concurrency: numberFlag('--concurrency', flags.concurrency, { min: 1, max: MAX_CONCURRENCY, integer: true }),
    order: flags.order,
    // A webhook receiver only makes sense in a process that stays up: --listen implies --watch.
    watch: flags.watch === true || listenPort !== undefined,
    intervalMs: numberFlag('--interval', flags.interval, { min: 1, max: 86_400, integer: true }) * 1000,
    listenPort,
    secretEnv: flags.secretEnv,
    journalPath: flags.journal,
    dryRun: flags.dryRun === true,
    maxAttempts: numberFlag('--max-attempts', flags.maxAttempts, { min: 1, max: 1000, integer: true }),
    retryParked: flags.retryParked === true,
    ...(flags.metrics === undefined ? {} : { metrics: parseAddress('--metrics', flags.metrics) }),
    logFormat: flags.logFormat,
  };
  if (o.dryRun && o.watch) throw new UsageError('--dry-run lists one pass: it does not go with --watch or --listen');
  return o;
}

export async function run(ctx: Context, o: CommandOptions): Promise<number> {
  const connection = await ctx.connection();
  return runSync(ctx, o, o.journalPath ?? defaultJournalPath(ctx.io.env, connection.profile));
}
