// rfs sync status (cli.md, sync): what the journal holds, read without taking its lock, so that
// it works beside a running `rfs sync --watch`. Nothing is sent to the service.
import { openProfiles } from '../../../config/profiles.js';
import { selectProfile } from '../../../config/connection.js';
import { EXIT, UsageError } from '../../../core/errors.js';
import { formatIn } from '../../../output/time.js';
import { writeList } from '../../../output/list-writer.js';
import { standingOf } from '../../../sync/backoff.js';
import { defaultJournalPath, Journal } from '../../../sync/journal.js';
import type { Context } from '../../context.js';
import type { Input } from './index.js';

export interface StatusOptions {
  journalPath?: string;
}

export function options({ flags, command }: Input): StatusOptions {
  // `sync` declares --journal too, and commander gives a flag known to both to the parent,
  // wherever it stands: `rfs sync status --journal x` and `rfs sync --journal x status` alike.
  const parent = command.parent;
  // Every other flag of `sync` is parsed too (commander reads a parent's flags on either side of
  // the subcommand): a subcommand takes only its own flags, so one given is refused.
  const foreign = (parent?.options ?? []).filter((o) => {
    const key = o.attributeName();
    return key !== 'journal' && parent?.getOptionValueSource(key) === 'cli';
  });
  if (foreign.length > 0) {
    const names = foreign.map((o) => o.long ?? o.flags).join(', ');
    throw new UsageError(`rfs sync status takes only --journal (and the global flags), not ${names}: that is a flag of rfs sync`);
  }
  const journalPath = flags.journal ?? (parent?.opts() as { journal?: string } | undefined)?.journal;
  return journalPath === undefined ? {} : { journalPath };
}

/** One recording of the journal, as `-o json` shows it. */
interface Row {
  id: string;
  state: 'pending' | 'failing' | 'parked';
  detail: string;
  /** Times the command was started for it (RFS_ATTEMPT of the last run). */
  attempts: number;
  /** Failures of the command in a row. */
  failures: number;
  lastError: { code: string; title: string } | null;
  lastFailedAt: string | null;
  /** When --watch runs it again; null unless failing. */
  nextTry: string | null;
}

export async function run(ctx: Context, o: StatusOptions): Promise<number> {
  const path =
    o.journalPath ??
    defaultJournalPath(
      ctx.io.env,
      selectProfile(ctx.globals, ctx.io.env, openProfiles(ctx.io.env, { cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) })).name,
    );
  const journal = Journal.peek(path);
  journal.warnProblems(ctx.ui);
  const rows: Row[] = [];
  for (const [id, s] of journal.states) {
    const standing = standingOf(s);
    const f = s.failure;
    const base = {
      id,
      attempts: s.attempts,
      failures: f?.failures ?? 0,
      lastError: f ? f.error : null,
      lastFailedAt: f?.at ?? null,
      nextTry: null,
    };
    if (standing.state === 'pending') {
      const detail =
        standing.why === 'answer-to-file'
          ? `answered ${s.result?.externalId ?? ''}: filed on the next run, without running the command`
          : `the command may have run (rfs stopped while it ran): runs again with RFS_ATTEMPT=${s.attempts + 1}`;
      rows.push({ ...base, state: 'pending', detail });
    } else if (standing.state === 'failing') {
      rows.push({
        ...base,
        state: 'failing',
        detail: 'waits before its next run in --watch',
        nextTry: new Date(standing.nextTry).toISOString(),
      });
    } else {
      rows.push({ ...base, state: 'parked', detail: 'not run again until rfs sync --retry-parked' });
    }
  }
  const order = { parked: 0, failing: 1, pending: 2 } as const;
  rows.sort((a, b) => order[a.state] - order[b.state] || a.id.localeCompare(b.id));

  await writeList(ctx.io, ctx.globals.output, rows, {
    color: ctx.globals.color,
    columns: [
      { header: 'ID', value: (r) => r.id },
      { header: 'STATE', value: (r) => r.state },
      // On a narrow terminal FAILURES goes first, then NEXT TRY: the state says most of both,
      // and the error is what to read.
      { header: 'FAILURES', value: (r) => r.failures, align: 'right', dropOrder: 1 },
      { header: 'NEXT TRY', value: (r) => formatIn(r.nextTry, ctx.clock.now()), dropOrder: 2 },
      { header: 'LAST ERROR', value: (r) => (r.lastError ? r.lastError.title : r.detail), flex: true, minWidth: 24 },
    ],
    // The command's message is why it failed: read whole, wrapped at words under its column,
    // as doctor's advice is, never cut.
    wrapLast: true,
  });
  const count = (state: Row['state']): number => rows.filter((r) => r.state === state).length;
  ctx.ui.notice(`journal ${journal.path}: ${count('pending')} pending, ${count('failing')} failing, ${count('parked')} parked`);
  return EXIT.OK;
}
