// rfs recordings get <id> (cli.md, recordings): metadata, client and matter, filing history,
// every note and document block in sortOrder with its text, and the transcript.
import { getRecording } from '../../../api/recordings.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import { writeResource } from '../../../output/list-writer.js';
import type { KeyValueSection } from '../../../output/key-value.js';
import { formatLocalTime } from '../../../output/time.js';
import { formatBytes, formatDuration } from '../../../output/units.js';
import type { RecordingDetail } from '../../../shared/schemas.js';
import type { Input } from './index.js';

type Block = RecordingDetail['notes'][number];

function reference(ref: RecordingDetail['client']): string | null {
  return ref === null ? null : `${ref.name} (${ref.referenceNumber}, ${ref.id})`;
}

function blockSection(heading: string, blocks: Block[]): KeyValueSection {
  const sorted = [...blocks].sort((a, b) => a.sortOrder - b.sortOrder);
  return {
    heading,
    rows: sorted.map((b) => ({
      label: `${b.templateName} (${b.id})`,
      text: b.contentStatus === 'available' ? b.contentText : null,
      missing: 'content unavailable',
      // The structure (headings, lists) when the rich text came; a first heading that only
      // repeats the template's name is left out.
      rich: b.contentStatus === 'available' ? b.contentJson : undefined,
      title: b.templateName,
    })),
  };
}

export function recordingSections(r: RecordingDetail): KeyValueSection[] {
  return [
    {
      rows: [
        { label: 'ID', value: r.id },
        { label: 'Title', value: r.title },
        { label: 'Status', value: r.status },
        { label: 'Priority', value: r.priority },
        { label: 'Author', value: `${r.author.name} <${r.author.email}>` },
        { label: 'Client', value: reference(r.client) },
        { label: 'Matter', value: reference(r.matter) },
        { label: 'Duration', value: formatDuration(r.audioDuration) },
        { label: 'Audio size', value: formatBytes(r.audioSize) },
        { label: 'Created', value: formatLocalTime(r.createdAt) },
        { label: 'Updated', value: formatLocalTime(r.updatedAt) },
      ],
    },
    {
      heading: 'Filing',
      rows: [
        { label: 'Sync count', value: r.syncCount },
        { label: 'Last synced', value: r.lastSyncedAt === null ? 'never' : formatLocalTime(r.lastSyncedAt) },
      ],
    },
    blockSection('Notes', r.notes),
    blockSection('Documents', r.documents),
    { heading: 'Transcript', rows: [{ label: '', text: r.transcript, missing: '(empty)' }] },
  ];
}

export interface GetOptions {
  id: string;
  include: 'contentJson' | undefined;
}

export function options({ args: [id], flags }: Input): GetOptions {
  return { id, include: flags.include };
}

export async function run(ctx: Context, { id, include }: GetOptions): Promise<number> {
  const client = await ctx.api();
  // The table view shows each block's structure, so it asks for the rich text too; json and
  // ndjson print what was asked for, exactly.
  const ask = ctx.globals.output === 'table' ? 'contentJson' : include;
  const recording = await getRecording(client, id, { include: ask, signal: ctx.signal });
  await writeResource(ctx.io, ctx.globals.output, recording, { color: ctx.globals.color, sections: recordingSections });
  return EXIT.OK;
}
