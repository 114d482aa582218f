// rfs file <id> …  and  rfs file --from <file | ->  (cli.md, file).
import { createReadStream } from 'node:fs';
import { addAbortSignal, type Readable } from 'node:stream';
import { checkFiling, type FilingField } from '../../shared/filing.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../shared/json-depth.js';
import { fileRecording } from '../../api/recordings.js';
import type { Context } from '../context.js';
import { readBounded } from '../../core/bounded-read.js';
import { EXIT, RfsError, UsageError } from '../../core/errors.js';
import type { FilingRequest } from '../../shared/schemas.js';
import { describeProblem, readLines, type InputLine } from '../../batch/lines.js';
import { Progress } from '../../batch/progress.js';
import { itemError, ResultWriter, type ItemResult } from '../../batch/results.js';
import { runBatch as runLines, writeSummary, type BatchReport, type ItemRun } from '../../batch/runner.js';
import { isoFlag, requireFlag } from '../flags.js';
import type { Input } from './index.js';
import { writeResource } from '../../output/list-writer.js';
import { formatLocalTime } from '../../output/time.js';

/** One filing, or a batch of them read from lines. */
export type FileOptions = { id: string; filing: FilingRequest } | { from: string; defaultProvider: string | undefined; failFast: boolean };

export async function options({ args: [id], flags }: Input, ctx: Context): Promise<FileOptions> {
  // The profile's default provider (`rfs config set provider`) stands in for the flag.
  const provider = flags.provider ?? ctx.globals.provider;
  if (flags.from !== undefined) {
    if (id !== undefined || flags.externalId !== undefined || flags.metadata !== undefined) {
      throw new UsageError('--from takes every filing from its lines: give no id, --external-id or --metadata with it');
    }
    return { from: flags.from, defaultProvider: provider, failFast: flags.failFast === true };
  }
  if (id === undefined) throw new UsageError('a recording id is required (or --from <file> for a batch)');
  const fields = stripUndefined({
    provider: requireFlag('--provider', provider),
    externalId: requireFlag('--external-id', flags.externalId),
    externalUrl: flags.externalUrl,
    filedAt: isoFlag('--filed-at', flags.filedAt),
    metadata: await readMetadata(flags.metadata, ctx.signal),
  });
  const checked = checkFiling(fields, ctx.clock.now(), { names: FLAG_NAMES });
  if ('problem' in checked) throw new UsageError(checked.problem);
  return { id, filing: checked.filing };
}

/** The flag of each filing field, for problems with a filing given as flags. */
const FLAG_NAMES: Record<FilingField, string> = {
  provider: '--provider',
  externalId: '--external-id',
  externalUrl: '--external-url',
  filedAt: '--filed-at',
  metadata: '--metadata',
};

export async function run(ctx: Context, o: FileOptions): Promise<number> {
  if ('from' in o) return runBatch(ctx, o);
  const { id, filing } = o;
  const client = await ctx.api();
  const result = await fileRecording(client, id, stripUndefined(filing), ctx.signal);
  const view = { ...result.data, replayed: result.meta.replayed };
  await writeResource(ctx.io, ctx.globals.output, view, {
    color: ctx.globals.color,
    sections: (v) => [
      {
        rows: [
          { label: 'Recording', value: v.id },
          { label: 'Synced at', value: formatLocalTime(v.lastSyncedAt) },
          { label: 'Sync count', value: v.syncCount },
          { label: 'Provider', value: v.syncMetadata.provider },
          { label: 'External id', value: v.syncMetadata.externalId },
          { label: 'External URL', value: v.syncMetadata.externalUrl ?? null },
          { label: 'Metadata', value: v.syncMetadata.metadata ?? null },
          { label: 'Replayed', value: v.replayed ? 'yes: already filed with this provider and external id' : 'no' },
        ],
      },
    ],
  });
  return EXIT.OK;
}

/**
 * The most bytes of --metadata: a filing's whole body is at most 1 MiB for the service (the
 * sandbox's limit), so more could never be sent; /dev/zero or an endless FIFO stops here.
 */
const MAX_METADATA_BYTES = 1024 * 1024;

async function readMetadata(raw: string | undefined, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw.startsWith('@')) {
    const path = raw.slice(1);
    try {
      const bytes = await readBounded(path, {
        limit: MAX_METADATA_BYTES,
        what: `--metadata file ${path}`,
        kind: "a filing's metadata",
        signal,
      });
      text = bytes.toString('utf8');
    } catch (error) {
      if (error instanceof RfsError) throw error;
      throw new UsageError(`cannot read --metadata file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--metadata is not valid JSON', { hint: 'give a JSON object, e.g. --metadata \'{"folder":"2026"}\', or @file' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--metadata must be a JSON object');
  // Its depth is checkFiling's rule (shared/filing.ts), with every other rule of a filing.
  return value as Record<string, unknown>;
}

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** What a line's check found: the id when the line has one (echoed in its result), and the filing or why not. */
interface LineCheck {
  id: string | null;
  filing?: FilingRequest;
  problem?: string;
  /** The line has no provider and --provider gives none. */
  noProvider?: boolean;
}

/** The fields of one batch line, checked locally so that a bad line is reported, not sent. */
function checkLine(text: string, defaultProvider: string | undefined, now: number): LineCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { id: null, problem: 'the line is not valid JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { id: null, problem: 'the line is not a JSON object' };
  // Deeper than any answer rfs reads (contract.ts): sending it would overflow the stack.
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return { id: null, problem: `the line is nested more than ${MAX_JSON_DEPTH} levels deep` };
  const { id, recordingId, ...rest } = value as Record<string, unknown>;
  const recording = id ?? recordingId;
  if (typeof recording !== 'string' || recording === '') return { id: null, problem: 'the line has no "id" (or "recordingId") string' };
  if (id !== undefined && recordingId !== undefined && id !== recordingId) {
    return { id: typeof id === 'string' ? id : null, problem: '"id" and "recordingId" disagree' };
  }
  if (rest.provider === undefined && defaultProvider === undefined) {
    return { id: recording, problem: '"provider" is missing: give it in the line, or a default with --provider', noProvider: true };
  }
  const checked = checkFiling({ provider: defaultProvider, ...rest }, now, { holder: 'a line' });
  if ('problem' in checked) return { id: recording, problem: checked.problem };
  return { id: recording, filing: checked.filing };
}

async function runBatch(ctx: Context, { from, defaultProvider, failFast }: Extract<FileOptions, { from: string }>): Promise<number> {
  const input: Readable = from === '-' ? ctx.io.stdin : createReadStream(from);
  if (from !== '-') {
    await new Promise<void>((resolve, reject) => {
      input.once('readable', resolve);
      input.once('error', (error: NodeJS.ErrnoException) => reject(new UsageError(`cannot read ${from}: ${error.code ?? error.message}`)));
    });
  }
  const writer = new ResultWriter(
    ctx,
    (r) => ({
      label: [String(r.line), r.id === null || r.id === undefined ? '-' : String(r.id)],
      done: [
        `${r.replayed ? 'already filed' : 'filed'} (syncCount ${String(r.syncCount)})`,
        ...(r.duplicateOf === undefined ? [] : [`same id as line ${String(r.duplicateOf)}`]),
      ].join('; '),
    }),
    // Recording ids of the service are rec_ and 16 characters: rows of those line up.
    ['LINE', { header: 'ID', minWidth: 20 }],
  );
  // A terminal sees how far the batch is; one line of counts, not a line per item.
  const progress = await Progress.start(ctx.ui, 'filing: reading lines');
  let warnedProvider = false;
  const firstLine = new Map<string, number>();
  let blank = 0;
  /** Lines the service answered as replays: filed before, not filed by this run. */
  let alreadyFiled = 0;

  const client = await ctx.api();
  // Ctrl-C while waiting for the next line (a producer that is slow, or never closes the pipe)
  // must end the read too, or the batch would wait for input before it could report.
  addAbortSignal(ctx.signal, input);
  const fileLine = async (item: InputLine, run: ItemRun): Promise<ItemResult | undefined> => {
    if ('problem' in item) {
      if (item.problem === 'blank') {
        blank += 1;
        return undefined;
      }
      return { line: item.line, id: null, ok: false, error: localError(describeProblem(item.problem)) };
    }
    const checked = checkLine(item.text, defaultProvider, ctx.clock.now());
    const id = checked.id;
    if (checked.filing === undefined || id === null) {
      if (checked.noProvider && !warnedProvider) {
        // Said once, not once a line: the fix is one flag for the whole batch.
        warnedProvider = true;
        await progress.clearedFor(async () =>
          ctx.ui.warn('no --provider given: lines without "provider" fail; add --provider <p> as their default'),
        );
      }
      return { line: item.line, id, ok: false, error: localError(checked.problem ?? 'the line is not a valid filing') };
    }
    const parsed = { id, filing: checked.filing };
    progress.update(`filing line ${item.line} (${writer.ok} filed, ${writer.failed} failed so far)`);
    try {
      const earlier = firstLine.get(parsed.id);
      if (earlier === undefined) firstLine.set(parsed.id, item.line);
      run.doing(`filing line ${item.line}`);
      const answer = await fileRecording(client, parsed.id, stripUndefined(parsed.filing), ctx.signal);
      const result: ItemResult = {
        line: item.line,
        id: parsed.id,
        ok: true,
        replayed: answer.meta.replayed,
        syncCount: answer.data.syncCount,
      };
      if (earlier !== undefined) result.duplicateOf = earlier;
      if (answer.meta.replayed) alreadyFiled += 1;
      return result;
    } catch (error) {
      // A line refused locally was never sent: it is the line that is wrong, not the service.
      return { line: item.line, id, ok: false, error: error instanceof UsageError ? localError(error.message) : itemError(error) };
    }
  };
  const report = await runLines({
    items: readLines(input, { what: from === '-' ? 'stdin' : 'the file given to --from' }),
    work: fileLine,
    writer,
    signal: ctx.signal,
    failFast,
    progress,
  });
  summary(ctx, writer, report, { blank, alreadyFiled });
  return report.exitCode;
}

function localError(title: string): ItemResult['error'] {
  return { status: null, code: 'INVALID_LINE', title, requestId: null };
}

function summary(
  ctx: Context,
  writer: ResultWriter,
  report: BatchReport<InputLine>,
  { blank, alreadyFiled }: { blank: number; alreadyFiled: number },
): void {
  // A replay was filed before this run: counted apart, as its row says `already filed`.
  const parts = [
    `${report.ok - alreadyFiled} filed`,
    ...(alreadyFiled > 0 ? [`${alreadyFiled} already filed`] : []),
    `${report.failed} failed`,
  ];
  if (blank > 0) parts.push(`${blank} blank line${blank === 1 ? '' : 's'} skipped`);
  const closed = writer.closedNote();
  if (closed) parts.push(closed);
  writeSummary(ctx.ui, `${parts.join(', ')}${endNote(report)}`);
}

function endNote({ end, done }: BatchReport<InputLine>): string {
  switch (end.how) {
    case 'finished':
      return '';
    case 'stopped': {
      const why = end.because === 'fail-fast' ? '--fail-fast' : `the key was refused (${end.error?.code ?? ''})`;
      return `; ${why}: stopped after line ${end.after.line}; later lines were not processed`;
    }
    case 'interrupted': {
      const line = end.inFlight[0]?.item.line;
      if (line === undefined) return `; interrupted: lines up to ${done.at(-1)?.line ?? 0} were processed, later lines were not`;
      return `; interrupted while filing line ${line} (it may have been recorded; filing it again is safe, filings are idempotent); lines after ${line} were not processed`;
    }
  }
}
