// rfs deliveries replay <id>…  and  --all-failed (cli.md, deliveries): one result line per
// delivery, going on past failures, a summary on stderr, exit 8 when any replay failed.
import { listDeliveries, replayDelivery } from '../../../api/webhooks.js';
import { itemError, ResultWriter } from '../../../batch/results.js';
import type { Context } from '../../context.js';
import { ApiError, CancelError, EXIT, UsageError } from '../../../core/errors.js';
import { canPrompt } from '../../../core/io.js';
import { writeList } from '../../../output/list-writer.js';
import { sanitize } from '../../../output/sanitize.js';
import { confirmAction } from '../../../prompt/confirm.js';
import { DELIVERY_COLUMNS } from '../../../output/deliveries.js';
import { field } from '../../../output/fields.js';
import type { Input } from './index.js';

export interface ReplayOptions {
  /** The ids given; empty with --all-failed. */
  ids: string[];
  allFailed: boolean;
  subscriptionId: string | undefined;
  dryRun: boolean;
}

export function options({ args: [ids], flags }: Input): ReplayOptions {
  const allFailed = flags.allFailed === true;
  const dryRun = flags.dryRun === true;
  if (allFailed && ids.length > 0) throw new UsageError('give delivery ids or --all-failed, not both');
  if (!allFailed && ids.length === 0) throw new UsageError('give one or more delivery ids, or --all-failed');
  if (!allFailed && (flags.subscription !== undefined || dryRun)) {
    throw new UsageError('--subscription and --dry-run go with --all-failed');
  }
  return { ids, allFailed, subscriptionId: flags.subscription, dryRun };
}

export async function run(ctx: Context, o: ReplayOptions): Promise<number> {
  const { allFailed, subscriptionId } = o;
  // Asking comes after the listing, but whether we could ask is known now: fail before sending.
  if (allFailed && !o.dryRun && !ctx.globals.yes && !canPrompt(ctx.io)) {
    throw new UsageError('replaying every FAILED delivery needs a confirmation, and there is no terminal to ask on', {
      hint: 'pass --yes to confirm, or --dry-run to only list them',
    });
  }
  const client = await ctx.api();
  let ids: string[] = o.ids;
  if (allFailed) {
    // One listing: api.md returns at most 50 rows and gives the list no cursor.
    const failed = await listDeliveries(client, { status: 'FAILED', subscriptionId, limit: 50, signal: ctx.signal });
    if (o.dryRun) {
      await writeList(ctx.io, ctx.globals.output, failed, { columns: DELIVERY_COLUMNS, color: ctx.globals.color, width: ctx.io.columns });
      ctx.ui.notice(`${failed.length} FAILED deliver${failed.length === 1 ? 'y' : 'ies'} would be replayed (dry run: nothing sent)`);
      if (failed.length >= 50) ctx.ui.notice('the list holds at most 50 rows: more may remain after these are replayed');
      return EXIT.OK;
    }
    if (failed.length === 0) {
      ctx.ui.notice('no FAILED deliveries: nothing to replay');
      return EXIT.OK;
    }
    ids = failed.map((d) => d.id);
    if (!ctx.globals.yes) {
      ctx.io.stderr.write(`FAILED deliveries: ${ids.map((id) => sanitize(id)).join(', ')}\n`);
    }
    if (!(await confirmAction(ctx, `Replay ${ids.length} FAILED deliver${ids.length === 1 ? 'y' : 'ies'}?`))) {
      ctx.io.stderr.write('Nothing replayed.\n');
      return EXIT.OK;
    }
  }

  const writer = new ResultWriter(ctx, (r) => ({ label: String(r.id), done: `replayed (now ${String(r.status ?? 'queued')})` }));
  const spinner = await ctx.ui.spinner(`replaying 0/${ids.length}`);
  const done: string[] = [];
  let inFlight: string | undefined;
  let stopCode: number | undefined;
  try {
    for (const [n, id] of ids.entries()) {
      if (ctx.signal.aborted) throw new CancelError('interrupted');
      spinner.update(`replaying ${n + 1}/${ids.length}`);
      try {
        inFlight = id;
        const { delivery } = await replayDelivery(client, id, ctx.signal);
        inFlight = undefined;
        const status = delivery !== null && typeof delivery === 'object' ? field(delivery, 'status') || null : null;
        spinner.stop();
        await writer.write({ id, ok: true, status });
      } catch (error) {
        if (error instanceof CancelError || ctx.signal.aborted) throw error;
        inFlight = undefined;
        spinner.stop();
        await writer.write({ id, ok: false, error: itemError(error) });
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          stopCode = error.exitCode;
          done.push(id);
          break;
        }
      }
      done.push(id);
    }
  } catch (error) {
    spinner.stop();
    if (!(error instanceof CancelError) && !ctx.signal.aborted) throw error;
    const why = inFlight === undefined ? 'interrupted' : `interrupted while replaying ${sanitize(inFlight)} (it may have been queued)`;
    summary(ctx, writer, ids.filter((id) => !done.includes(id) && id !== inFlight), why);
    return EXIT.INTERRUPTED;
  }
  spinner.stop();
  summary(ctx, writer, ids.filter((id) => !done.includes(id)), stopCode === undefined ? undefined : 'stopped: the key was refused');
  if (allFailed && ids.length >= 50) ctx.ui.notice('the FAILED list holds at most 50 rows: run again to replay any that remain');
  if (stopCode !== undefined) return stopCode;
  return writer.failed > 0 ? EXIT.BATCH_FAILED : EXIT.OK;
}

function summary(ctx: Context, writer: ResultWriter, notDone: string[], why: string | undefined): void {
  let text = `${writer.ok} replayed, ${writer.failed} failed`;
  if (why) text += `; ${why}`;
  const closed = writer.closedNote();
  if (closed) text += `; ${closed}`;
  if (notDone.length > 0) text += `; not replayed: ${notDone.map((id) => sanitize(id)).join(', ')}`;
  ctx.io.stderr.write(`${text}\n`);
}
