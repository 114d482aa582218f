// `rfs sandbox --scenario incident` (sandbox.md, Rehearsing an incident): two hours of webhook
// history made at start, as the delivery worker would have written it, so the incident kit has
// something real to work on at once. Everything comes from the seed (ids, secrets, which attempt
// failed how) and every time is relative to the start, so one seed gives one incident.
//
// The story, in minutes before the start:
// - 150 recordings completed over the two hours (the last few in a burst), each delivered to
//   every subscription that existed then;
// - `healthy` answered 200 throughout;
// - `failing` was fine until 100 min ago, then answered 500s and timeouts, then refused
//   connections too, and for the last 30 min mostly 503s with Retry-After; its newest
//   deliveries are still PENDING, retrying live against its receiver (still failing);
// - `deleted`'s endpoint went away 120 min ago (refused, timeouts); every delivery failed, and
//   its subscription was deleted 58 min ago, so its FAILED deliveries are older than the
//   `failing` ones and hide behind a full list of 50.
import { COMPLETED_EVENT, deliveryBody, deliveryHeaders } from '../shared/delivery.js';
import { type People, newRecording } from './generator.js';
import { Rng, derive32 } from './random.js';
import type { Delivery, DeliveryAttempt, Recording, Subscription } from './types.js';

export const INCIDENT_RECEIVERS = { healthy: 'ok', failing: 'fail', deleted: 'down' } as const;
export type IncidentReceiver = keyof typeof INCIDENT_RECEIVERS;

const MINUTE = 60_000;
const COMPLETIONS = 150;
/** The last completions come in a burst, so a few deliveries are still in their round of retries at the start. */
const BURST = 8;
const BURST_MS = 2 * MINUTE;

export interface IncidentInput {
  material: Buffer;
  /** The start: every time is this minus something. */
  now: number;
  /** The URL of each receiver (its port is only known once it listens). */
  urls: Record<IncidentReceiver, string>;
  people: People;
  maxAttempts: number;
  backoffMs: number;
  timeoutMs: number;
  /** data of a delivery's payload (views.ts). */
  payloadData: (rec: Recording) => Record<string, unknown>;
}

export interface Incident {
  recordings: Recording[];
  /** `healthy` and `failing`: `deleted` is gone, only its deliveries remain. */
  subscriptions: Subscription[];
  subscriptionIds: Record<IncidentReceiver, string>;
  /** Oldest first, as deliveries are listed newest first from the end. */
  deliveries: Delivery[];
  /** When each PENDING delivery's next attempt is due. */
  nextAttemptAt: Map<string, number>;
}

type Outcome = { status: number | null; error: string | null; durationMs: number };

/** What the endpoint did `ago` minutes before the start; each draw is one attempt. */
function outcome(rng: Rng, receiver: IncidentReceiver, ago: number, input: IncidentInput): Outcome {
  const http = (status: number): Outcome => ({ status, error: status < 300 ? null : `HTTP ${status}`, durationMs: rng.int(25, 400) });
  const timeout = (): Outcome => ({ status: null, error: `no answer within ${input.timeoutMs} ms`, durationMs: input.timeoutMs });
  const refused = (): Outcome => {
    const { host } = new URL(input.urls[receiver]);
    return { status: null, error: `ECONNREFUSED: connect ECONNREFUSED ${host}`, durationMs: rng.int(0, 3) };
  };
  if (receiver === 'healthy' || (receiver === 'failing' && ago > 100)) return http(rng.chance(0.7) ? 200 : 202);
  if (receiver === 'deleted') return rng.weighted([refused, timeout], [7, 3])();
  if (ago > 60) return rng.weighted([() => http(500), timeout, () => http(503)], [60, 25, 15])();
  if (ago > 30) return rng.weighted([refused, timeout, () => http(500), () => http(503)], [35, 25, 20, 20])();
  return rng.weighted([() => http(503), () => http(500), timeout], [55, 30, 15])();
}

/** The minute (before the start) at which completion `i` of COMPLETIONS happened. */
function completionAgo(rng: Rng, i: number): number {
  const steady = COMPLETIONS - BURST;
  if (i < steady) return 120 - (i * (118 - BURST_MS / MINUTE)) / steady - rng.float() * 0.5;
  return BURST_MS / MINUTE - ((i - steady) * (BURST_MS / MINUTE)) / BURST - rng.float() * 0.1;
}

export function buildIncident(input: IncidentInput): Incident {
  const rng = new Rng(derive32(input.material, 'scenario:incident'));
  const { now } = input;
  const at = (ago: number): number => Math.round(now - ago * MINUTE);
  const made: Record<IncidentReceiver, { createdAgo: number; deletedAgo: number | null }> = {
    healthy: { createdAgo: 125, deletedAgo: null },
    failing: { createdAgo: 124, deletedAgo: null },
    deleted: { createdAgo: 123, deletedAgo: 58 },
  };
  const names = Object.keys(INCIDENT_RECEIVERS) as IncidentReceiver[];
  const subs = names.map(
    (name): Subscription => ({
      id: rng.chars(20, 'wh_'),
      workspace: 'main',
      url: input.urls[name],
      events: [COMPLETED_EVENT],
      secret: rng.chars(32, 'whsec_'),
      createdAt: at(made[name].createdAgo),
    }),
  );
  const byName = Object.fromEntries(names.map((name, i) => [name, subs[i] as Subscription])) as Record<IncidentReceiver, Subscription>;

  const recordings: Recording[] = [];
  const deliveries: Delivery[] = [];
  const nextAttemptAt = new Map<string, number>();
  for (let i = 0; i < COMPLETIONS; i++) {
    const ago = completionAgo(rng, i);
    const completedAt = at(ago);
    const rec = newRecording(
      'main',
      input.people,
      { status: 'COMPLETED' },
      rng.chars(16, 'rec_'),
      rng.int(0, 2 ** 32 - 1),
      completedAt - rng.int(5, 40) * MINUTE,
    );
    rec.updatedAt = completedAt;
    recordings.push(rec);
    const data = input.payloadData(rec);
    for (const name of names) {
      const { deletedAgo } = made[name];
      if (deletedAgo !== null && ago <= deletedAgo) continue;
      const until = deletedAgo === null ? now : at(deletedAgo);
      const d = history(rng, input, name, byName[name], rec.id, data, completedAt, until);
      deliveries.push(d.delivery);
      if (d.nextAttemptAt !== null) nextAttemptAt.set(d.delivery.id, d.nextAttemptAt);
    }
  }
  deliveries.sort((a, b) => a.createdAt - b.createdAt);
  return {
    recordings,
    subscriptions: [byName.healthy, byName.failing],
    subscriptionIds: { healthy: byName.healthy.id, failing: byName.failing.id, deleted: byName.deleted.id },
    deliveries,
    nextAttemptAt,
  };
}

/** One delivery's attempts from `createdAt` on, as the worker makes them (its backoff, its limit), up to the start. */
function history(
  rng: Rng,
  input: IncidentInput,
  receiver: IncidentReceiver,
  sub: Subscription,
  recordingId: string,
  data: Record<string, unknown>,
  createdAt: number,
  until: number,
): { delivery: Delivery; nextAttemptAt: number | null } {
  const id = rng.chars(20, 'dlv_');
  const body = deliveryBody(id, COMPLETED_EVENT, data);
  const d: Delivery = {
    id,
    workspace: 'main',
    subscriptionId: sub.id,
    event: COMPLETED_EVENT,
    recordingId,
    status: 'PENDING',
    body,
    attempts: 0,
    roundAttempts: 0,
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    createdAt,
    log: [],
  };
  const { hostname } = new URL(sub.url);
  let time = createdAt + rng.int(50, 900);
  while (time <= until) {
    const got = outcome(rng, receiver, (input.now - time) / MINUTE, input);
    const timestamp = Math.floor(time / 1000);
    const attempt: DeliveryAttempt = {
      attempt: d.attempts + 1,
      at: time,
      url: sub.url,
      address: hostname,
      requestHeaders: {
        'content-type': 'application/json',
        'user-agent': 'rfs-sandbox',
        ...deliveryHeaders({ secret: sub.secret, timestamp, body, event: d.event, deliveryId: id }),
      },
      requestBody: body,
      responseStatus: got.status,
      error: got.error,
      durationMs: got.durationMs,
    };
    d.log.push(attempt);
    d.attempts++;
    d.roundAttempts++;
    d.lastAttemptAt = time;
    d.lastResponseStatus = got.status;
    d.lastError = got.error;
    if (got.error === null) {
      d.status = 'SUCCEEDED';
      return { delivery: d, nextAttemptAt: null };
    }
    if (d.roundAttempts >= input.maxAttempts) {
      d.status = 'FAILED';
      return { delivery: d, nextAttemptAt: null };
    }
    time += got.durationMs + input.backoffMs * 4 ** (d.roundAttempts - 1);
  }
  if (until < input.now) {
    // Its subscription was deleted meanwhile: the worker ends a delivery so (delivery-worker.ts, cancel).
    d.status = 'FAILED';
    d.lastError = 'subscription deleted';
    return { delivery: d, nextAttemptAt: null };
  }
  return { delivery: d, nextAttemptAt: time };
}
