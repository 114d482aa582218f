// A client generated from openapi.json, as an integrator makes one (openapi-typescript for the
// types, generated into generated/openapi-types.ts by scripts/openapi-types.mjs before every lint
// and type check, never committed; openapi-fetch for the calls), reading every field of every answer
// without a cast (sandbox.md, "The contract as a file"). `tsc --noEmit` in `npm test` compiles
// this file: a field the document leaves out, an optional id, a status that is a plain string
// instead of its enum, or a replay answer of `unknown` is a compile error here. It also runs,
// against a sandbox, and the types are checked fresh against openapi.json by the real tool.
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../sandbox/helpers.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { components, paths } from './generated/openapi-types.js';

type Schemas = components['schemas'];

/** Ends compilation when a union gains a member this code does not handle. */
function exhaustive(value: never): never {
  throw new Error(`unexpected ${String(value)}`);
}

function statusWord(status: Schemas['RecordingListItem']['status']): string {
  switch (status) {
    case 'DRAFT':
    case 'PENDING':
    case 'CLAIMED':
    case 'REVIEW_PENDING':
    case 'COMPLETED':
    case 'ARCHIVED':
      return status.toLowerCase();
    default:
      return exhaustive(status);
  }
}

function priorityRank(priority: Schemas['RecordingListItem']['priority']): number {
  switch (priority) {
    case 'LOW':
      return 0;
    case 'MEDIUM':
      return 1;
    case 'HIGH':
      return 2;
    case 'URGENT':
      return 3;
    default:
      return exhaustive(priority);
  }
}

function deliveryState(status: Schemas['Delivery']['status']): boolean {
  switch (status) {
    case 'PENDING':
      return false;
    case 'SUCCEEDED':
    case 'FAILED':
      return true;
    default:
      return exhaustive(status);
  }
}

const time = (iso: string): number => Date.parse(iso);
const ref = (r: Schemas['Reference'] | null): string => (r === null ? '-' : `${r.id} ${r.name} ${r.referenceNumber}`);

function block(b: Schemas['ContentBlock']): string {
  const text: string | null | undefined = b.contentText;
  const available: boolean = b.contentStatus === 'available';
  const json: Record<string, unknown> | undefined = b.contentJson;
  return [
    b.id,
    b.templateName,
    b.templateId,
    b.schemaVersion + b.contentRevision + b.sortOrder,
    time(b.createdAt),
    text,
    available,
    json,
  ].join('|');
}

function detailBlock(b: Schemas['RecordingDetail']['notes'][number]): number {
  const text: string | null = b.contentText;
  const status: 'available' | 'unavailable' = b.contentStatus;
  return (text?.length ?? 0) + status.length + Object.keys(b.contentJson ?? {}).length;
}

function listItem(r: Schemas['RecordingListItem']): string {
  const parts: (string | number | boolean)[] = [
    r.id,
    r.title,
    statusWord(r.status),
    priorityRank(r.priority),
    r.audioDuration,
    r.audioSize,
    r.notes.map(block).join(),
    r.documents.map(block).join(),
    `${r.author.id} ${r.author.name} ${r.author.email}`,
    ref(r.client),
    ref(r.matter),
    time(r.createdAt),
    time(r.updatedAt),
    r.lastSyncedAt === null ? 'never' : time(r.lastSyncedAt),
    r.syncCount,
  ];
  return parts.join('\t');
}

function detail(r: Schemas['RecordingDetail']): number {
  const transcript: string = r.transcript;
  return listItem(r).length + transcript.length + r.notes.map(detailBlock).length + r.documents.map(detailBlock).length;
}

function delivery(d: Schemas['Delivery']): string {
  const event: 'recording.completed' = d.event;
  const attempts: number = d.attempts;
  const last: number | null = d.lastAttemptAt === null ? null : time(d.lastAttemptAt);
  const answered: number | null = d.lastResponseStatus;
  const error: string | null = d.lastError;
  return [d.id, d.subscriptionId, event, d.recordingId, deliveryState(d.status), attempts, last, answered, error, time(d.createdAt)].join();
}

function problem(p: { type: string; title: string; status: number; code: string; requestId: string }): string {
  return `${p.status} ${p.code} ${p.title} ${p.type} ${p.requestId}`;
}

let sandbox: RunningSandbox;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver('/hook', { checkDeliveries: true });
  sandbox = await startSandbox({ port: 0, seed: 'typed-client', recordings: 6, rateLimit: 0, deliveryBackoffMs: 10 });
});
afterAll(async () => {
  await sandbox?.close();
  await receiver?.close();
});

describe('a client generated from openapi.json (openapi-typescript + openapi-fetch)', () => {
  it('compiles against the types openapi-typescript gives for the openapi.json of the package now', async () => {
    // The file tsc compiled this test against, and the generator's answer for openapi.json as it
    // is at this moment: equal, or the type check ran on other types than the document's.
    const { openapiTypes, TYPES_FILE } = await import('../../scripts/openapi-types.mjs');
    expect(readFileSync(TYPES_FILE, 'utf8'), 'run `npm run typecheck`: it generates the types, then compiles').toBe(await openapiTypes());
  });

  it('reads every field of every answer, typed, without a cast', async () => {
    const client = createClient<paths>({
      baseUrl: `${sandbox.baseUrl}/api/v1`,
      headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` },
    });

    const list = await client.GET('/recordings', { params: { query: { syncState: 'all', include: 'contentJson', limit: 3 } } });
    if (!list.data) throw new Error(`list: ${list.response.status}`);
    const { meta } = list.data;
    expect([meta.count, meta.limit, meta.hasMore, typeof meta.nextCursor]).toEqual([3, 3, true, 'string']);
    expect(list.data.data.map(listItem)).toHaveLength(3);

    const first = list.data.data[0];
    if (!first) throw new Error('no recording');
    const got = await client.GET('/recordings/{id}', { params: { path: { id: first.id }, query: { include: 'contentJson' } } });
    if (!got.data) throw new Error(`get: ${got.response.status}`);
    expect(detail(got.data.data)).toBeGreaterThan(0);

    const completed = await client.GET('/recordings', {});
    const target = completed.data?.data[0];
    if (!target) throw new Error('no COMPLETED recording');
    const filed = await client.POST('/recordings/{id}/filings', {
      params: { path: { id: target.id } },
      body: { provider: 'typed', externalId: 'T-1', externalUrl: 'https://x.invalid/T-1', metadata: { a: 1 } },
    });
    if (!filed.data) throw new Error(`filing: ${filed.response.status}`);
    const f = filed.data.data;
    const m = f.syncMetadata;
    const replayed: boolean = filed.data.meta.replayed;
    expect([f.id, f.syncCount, time(f.lastSyncedAt) > 0, m.provider, m.externalId, m.externalUrl, time(m.filedAt) > 0, m.metadata]).toEqual(
      [target.id, 1, true, 'typed', 'T-1', 'https://x.invalid/T-1', true, { a: 1 }],
    );
    expect(replayed).toBe(false);

    const created = await client.POST('/webhooks', {
      params: { header: { 'Idempotency-Key': 'typed-client-1' } },
      body: { url: receiver.url, events: ['recording.completed'] },
    });
    if (!created.data) throw new Error(`create: ${created.response.status}`);
    const hook = created.data.data;
    const secret: string = hook.secret;
    expect([hook.id.startsWith('wh_'), hook.url, hook.events, time(hook.createdAt) > 0, secret.startsWith('whsec_')]).toEqual([
      true,
      receiver.url,
      ['recording.completed'],
      true,
      true,
    ]);
    const hooks = await client.GET('/webhooks', {});
    if (!hooks.data) throw new Error(`webhooks: ${hooks.response.status}`);
    const hm = hooks.data.meta;
    expect(hooks.data.data.map((h) => `${h.id} ${h.url} ${h.events.join()} ${time(h.createdAt)}`)).toHaveLength(1);
    expect([hm.count, hm.limit, hm.hasMore, hm.nextCursor]).toEqual([1, 50, false, null]);

    await sandbox.control.createRecording({ status: 'COMPLETED' });
    const [received] = await receiver.waitFor(1);
    const payload: Schemas['WebhookPayload'] = JSON.parse(received?.body.toString('utf8') ?? '{}');
    const p = payload.data;
    expect([payload.event, p.apiUrl, p.id, p.title.length > 0, statusWord(p.status), priorityRank(p.priority) >= 0]).toEqual([
      'recording.completed',
      `/api/v1/recordings/${p.id}`,
      p.id,
      true,
      'completed',
      true,
    ]);
    expect([p.author.email, ref(p.client), ref(p.matter), time(p.createdAt), time(p.updatedAt), p.lastSyncedAt, p.syncCount]).toHaveLength(
      7,
    );

    const deliveries = await client.GET('/webhooks/deliveries', { params: { query: { subscriptionId: hook.id } } });
    if (!deliveries.data) throw new Error(`deliveries: ${deliveries.response.status}`);
    const [one] = deliveries.data.data;
    if (!one) throw new Error('no delivery');
    expect(delivery(one)).toContain(payload.id);
    expect([deliveries.data.meta.count, deliveries.data.meta.limit]).toEqual([1, 50]);

    const replay = await client.POST('/webhooks/deliveries/{id}/replay', { params: { path: { id: one.id } } });
    if (!replay.data) throw new Error(`replay: ${replay.response.status}`);
    // The replay answer is a delivery, not `unknown`.
    expect(replay.data.data.id).toBe(one.id);
    expect(replay.data.data.status).toBe('PENDING');

    const removed = await client.DELETE('/webhooks/{id}', { params: { path: { id: hook.id } } });
    expect(removed.response.status).toBe(204);

    const missing = await client.GET('/recordings/{id}', { params: { path: { id: 'rec_missing' } } });
    if (!missing.error) throw new Error('a missing recording was found');
    const code: string = missing.error.code;
    expect(problem(missing.error)).toMatch(/^404 RESOURCE_NOT_FOUND /);
    expect(code).toBe('RESOURCE_NOT_FOUND');
  });
});
