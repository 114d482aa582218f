// Deterministic generation of the seeded data: the same seed and count give the same recordings,
// people and ids on every start. Only compact records are made here; content.ts derives the
// transcript and blocks from each record's contentSeed when they are served.
import type { Priority, RecordingStatus } from '../shared/schemas.js';
import { Rng, derive32, mix32 } from './random.js';
import type { Filing, Recording, WorkspaceId } from './types.js';
import { CLIENT_NAMES, FIRST_NAMES, INTERNAL_TITLES, LAST_NAMES, MATTER_TOPICS, PROVIDERS, RECORDING_KINDS } from './words.js';

export interface PersonRef {
  id: string;
  name: string;
  email: string;
}
export interface MatterRef {
  id: string;
  name: string;
  referenceNumber: string;
}
export interface ClientRef extends MatterRef {
  matters: MatterRef[];
}
export interface People {
  authors: PersonRef[];
  clients: ClientRef[];
}

const DOMAINS: Record<WorkspaceId, string> = {
  main: 'northgate-legal.example',
  other: 'ridgeway-law.example',
  starter: 'solo-practice.example',
};

/** The other two workspaces are small and fixed: they exist to prove isolation and plans. */
export function generatedCount(workspace: WorkspaceId, mainCount: number): number {
  return workspace === 'main' ? mainCount : workspace === 'other' ? 12 : 5;
}

function ascii(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

export function makePeople(material: Buffer, workspace: WorkspaceId): People {
  const rng = new Rng(derive32(material, `${workspace}:people`));
  const authors: PersonRef[] = [];
  const usedNames = new Set<string>();
  while (authors.length < 8) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const name = `${first} ${last}`;
    if (usedNames.has(name)) continue;
    usedNames.add(name);
    authors.push({ id: `usr_${rng.chars(12)}`, name, email: `${ascii(first)}.${ascii(last)}@${DOMAINS[workspace]}` });
  }
  const clients: ClientRef[] = [];
  for (const clientName of CLIENT_NAMES) {
    const matters: MatterRef[] = [];
    const matterCount = rng.int(1, 3);
    for (let m = 0; m < matterCount; m++) {
      matters.push({
        id: `mat_${rng.chars(12)}`,
        name: rng.pick(MATTER_TOPICS),
        referenceNumber: `M-${rng.int(2019, 2025)}-${String(rng.int(1, 9999)).padStart(4, '0')}`,
      });
    }
    clients.push({ id: `cli_${rng.chars(12)}`, name: clientName, referenceNumber: `C-${rng.int(10000, 99999)}`, matters });
  }
  return { authors, clients };
}

// Generated recordings end here, so that the data does not depend on the day it was made.
const ANCHOR_MS = Date.UTC(2025, 5, 30, 16, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type GeneratedStatus = RecordingStatus | 'COMPLETED_SYNCED';
// At least 60 % COMPLETED and unsynced (sandbox.md); the rest cycles through every other state.
const OTHER_STATUSES: readonly GeneratedStatus[] = ['DRAFT', 'PENDING', 'CLAIMED', 'REVIEW_PENDING', 'ARCHIVED', 'COMPLETED_SYNCED'];

function statusPlan(rng: Rng, count: number): GeneratedStatus[] {
  const others = Math.floor(count * 0.3);
  const plan: GeneratedStatus[] = [];
  for (let i = 0; i < count - others; i++) plan.push('COMPLETED');
  for (let i = 0; i < others; i++) plan.push(OTHER_STATUSES[i % OTHER_STATUSES.length] as GeneratedStatus);
  for (let i = plan.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const tmp = plan[i] as GeneratedStatus;
    plan[i] = plan[j] as GeneratedStatus;
    plan[j] = tmp;
  }
  return plan;
}

const PROCESSING_MS: Record<RecordingStatus, [number, number]> = {
  DRAFT: [0, 10 * MINUTE],
  PENDING: [MINUTE, 10 * MINUTE],
  CLAIMED: [5 * MINUTE, HOUR],
  REVIEW_PENDING: [30 * MINUTE, 6 * HOUR],
  COMPLETED: [20 * MINUTE, 2 * DAY],
  ARCHIVED: [30 * DAY, 90 * DAY],
};

const PRIORITY_LIST: readonly Priority[] = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'];
const PRIORITY_WEIGHTS = [25, 45, 22, 8];

export function pickPriority(rng: Rng): Priority {
  return rng.weighted(PRIORITY_LIST, PRIORITY_WEIGHTS);
}

export function makeTitle(rng: Rng, people: People, clientIndex: number, matterIndex: number): string {
  const client = people.clients[clientIndex];
  if (!client) return rng.pick(INTERNAL_TITLES);
  const kind = rng.pick(RECORDING_KINDS);
  const matter = client.matters[matterIndex];
  // join() makes a flat string; a template literal would keep a chain of pieces per title.
  return (matter ? [kind, ': ', client.name, ' - ', matter.name] : [kind, ': ', client.name]).join('');
}

export function pickClientAndMatter(rng: Rng, people: People): { clientIndex: number; matterIndex: number } {
  if (rng.chance(0.15)) return { clientIndex: -1, matterIndex: -1 };
  const clientIndex = rng.int(0, people.clients.length - 1);
  const matters = people.clients[clientIndex]?.matters.length ?? 0;
  return { clientIndex, matterIndex: matters === 0 || rng.chance(0.12) ? -1 : rng.int(0, matters - 1) };
}

export function audio(rng: Rng): { audioDuration: number; audioSize: number } {
  // Mostly a few minutes to half an hour; 128 kbit/s is 16 000 bytes a second.
  const audioDuration = rng.chance(0.1) ? rng.int(1800, 7200) : rng.int(45, 1800);
  return { audioDuration, audioSize: audioDuration * 16_000 + rng.int(0, 64_000) };
}

function seededFiling(rng: Rng, id: string, at: number): Filing {
  const provider = rng.pick(PROVIDERS);
  const externalId = `${provider.slice(0, 3).toUpperCase()}-${rng.int(100000, 999999)}`;
  const iso = new Date(at).toISOString();
  return {
    provider,
    externalId,
    data: { id, lastSyncedAt: iso, syncCount: 1, syncMetadata: { provider, externalId, filedAt: iso, metadata: {} } },
  };
}

/**
 * The generated recordings of one workspace, in (createdAt, id) order. `taken` holds the ids
 * already in use (all workspaces share one id space); new ids are added to it.
 */
export function generateRecordings(
  material: Buffer,
  workspace: WorkspaceId,
  count: number,
  people: People,
  taken: Set<string>,
): Recording[] {
  const base = derive32(material, `${workspace}:recordings`);
  const contentBase = derive32(material, `${workspace}:content`);
  const timeline = new Rng(derive32(material, `${workspace}:timeline`));
  const plan = statusPlan(new Rng(derive32(material, `${workspace}:statuses`)), count);
  // Spread over at most a year, at most three hours apart, whole seconds.
  const gap = Math.max(1000, Math.min(3 * HOUR, Math.floor((365 * DAY) / Math.max(count, 1))));
  let createdAt = Math.floor((ANCHOR_MS - count * gap) / 1000) * 1000;
  const out: Recording[] = new Array<Recording>(count);
  for (let i = 0; i < count; i++) {
    createdAt += Math.max(1000, Math.round(timeline.int(gap / 5, (gap * 9) / 5) / 1000) * 1000);
    const rng = new Rng(mix32(base, i));
    let id = rng.chars(16, 'rec_');
    while (taken.has(id)) id = rng.chars(16, 'rec_');
    taken.add(id);
    const { clientIndex, matterIndex } = pickClientAndMatter(rng, people);
    const planned = plan[i] ?? 'COMPLETED';
    const status: RecordingStatus = planned === 'COMPLETED_SYNCED' ? 'COMPLETED' : planned;
    const [lo, hi] = PROCESSING_MS[status];
    const updatedAt = createdAt + rng.int(lo / 1000, hi / 1000) * 1000;
    const synced = planned === 'COMPLETED_SYNCED';
    const lastSyncedAt = synced ? updatedAt + rng.int(600, 2 * 86_400) * 1000 : null;
    const { audioDuration, audioSize } = audio(rng);
    // A plain literal, no spread: spread objects can fall into V8's slower, bigger dictionary mode.
    out[i] = {
      id,
      workspace,
      origin: i,
      contentSeed: mix32(contentBase, i),
      title: makeTitle(rng, people, clientIndex, matterIndex),
      status,
      priority: pickPriority(rng),
      authorIndex: rng.int(0, people.authors.length - 1),
      clientIndex,
      matterIndex,
      audioDuration,
      audioSize,
      createdAt,
      updatedAt,
      lastSyncedAt,
      syncCount: synced ? 1 : 0,
      filings: lastSyncedAt === null ? null : [seededFiling(rng, id, lastSyncedAt)],
      version: 0,
      changed: false,
    };
  }
  return out;
}

export interface NewRecordingInput {
  title?: string | undefined;
  status: RecordingStatus;
  priority?: Priority | undefined;
}

/** A recording made through the control API: generated details, with the given ones on top. */
export function newRecording(
  workspace: WorkspaceId,
  people: People,
  input: NewRecordingInput,
  id: string,
  contentSeed: number,
  now: number,
): Recording {
  const rng = new Rng(contentSeed);
  const { clientIndex, matterIndex } = pickClientAndMatter(rng, people);
  const title = makeTitle(rng, people, clientIndex, matterIndex);
  const priority = pickPriority(rng);
  const { audioDuration, audioSize } = audio(rng);
  return {
    id,
    workspace,
    origin: -1,
    contentSeed,
    title: input.title ?? title,
    status: input.status,
    priority: input.priority ?? priority,
    authorIndex: rng.int(0, people.authors.length - 1),
    clientIndex,
    matterIndex,
    audioDuration,
    audioSize,
    createdAt: now,
    updatedAt: now,
    lastSyncedAt: null,
    syncCount: 0,
    filings: null,
    version: 0,
    changed: true,
  };
}
