// A test delivery, as the service would send it (cli.md, `rfs webhooks trigger`): the payload of
// api.md for a recording (or a built-in example), signed now, 10 minutes ago (--stale) or with
// another secret (--bad-signature): the cases api.md says receivers must accept, tolerate or refuse.
import { COMPLETED_EVENT, deliveryBody, deliveryHeaders, payloadDataOf } from '../shared/delivery.js';
import { newDeliveryId, newWebhookSecret } from '../shared/ids.js';

/** --stale signs this long ago: twice the usual 300 s tolerance. */
export const STALE_SECONDS = 600;

/** The recording of a delivery without --recording: plainly an example, with every field of the payload. */
export function exampleRecording(nowMs: number): { id: string } & Record<string, unknown> {
  return {
    id: 'rec_example000000001',
    title: 'Example: intake call with a new client',
    status: 'COMPLETED',
    priority: 'MEDIUM',
    author: { id: 'usr_example00000001', name: 'Alex Example', email: 'alex@example.com' },
    client: { id: 'cli_example00000001', name: 'Example Holdings Ltd', referenceNumber: 'CL-0001' },
    matter: { id: 'mat_example00000001', name: 'Example Holdings: lease review', referenceNumber: 'MT-0001' },
    createdAt: new Date(nowMs - 3_600_000).toISOString(),
    updatedAt: new Date(nowMs).toISOString(),
    lastSyncedAt: null,
    syncCount: 0,
  };
}

export interface TestDeliveryOptions {
  recording: { id: string } & Record<string, unknown>;
  /** A body to send as it is (trigger --payload): its own `id` and `data.id` name the delivery and recording. */
  payload?: Buffer | undefined;
  secret: string;
  nowMs: number;
  stale: boolean;
  badSignature: boolean;
}

export interface TestDelivery {
  deliveryId: string;
  recordingId: string;
  event: string;
  body: Buffer;
  headers: Record<string, string>;
  /** What a correct receiver does with it: accept a valid one, refuse a stale or badly signed one. */
  expected: 'accepted' | 'refused';
  /** How it was signed: `valid`, `stale` (10 minutes ago), `bad-signature` (another secret), or both. */
  signed: string;
}

/** The delivery id (`id`) and recording id (`data.id`) a given body holds, when it is such JSON. */
function namesOf(body: Buffer): { deliveryId: string | undefined; recordingId: string | undefined } {
  try {
    const value = JSON.parse(body.toString('utf8')) as { id?: unknown; data?: { id?: unknown } } | null;
    return {
      deliveryId: typeof value?.id === 'string' ? value.id : undefined,
      recordingId: typeof value?.data?.id === 'string' ? value.data.id : undefined,
    };
  } catch {
    return { deliveryId: undefined, recordingId: undefined };
  }
}

export function buildTestDelivery(o: TestDeliveryOptions): TestDelivery {
  const given = o.payload === undefined ? undefined : namesOf(o.payload);
  const deliveryId = given?.deliveryId ?? newDeliveryId();
  const body = o.payload ?? Buffer.from(deliveryBody(deliveryId, COMPLETED_EVENT, payloadDataOf(o.recording)), 'utf8');
  const timestamp = Math.floor(o.nowMs / 1000) - (o.stale ? STALE_SECONDS : 0);
  // Another secret of the same form: only the bytes of the signature differ.
  const secret = o.badSignature ? newWebhookSecret() : o.secret;
  const headers = deliveryHeaders({ secret, timestamp, body, event: COMPLETED_EVENT, deliveryId });
  const how = [o.stale ? 'stale' : undefined, o.badSignature ? 'bad-signature' : undefined].filter((w): w is string => w !== undefined);
  return {
    deliveryId,
    recordingId: given === undefined ? o.recording.id : (given.recordingId ?? '-'),
    event: COMPLETED_EVENT,
    body,
    headers,
    expected: o.stale || o.badSignature ? 'refused' : 'accepted',
    signed: how.length === 0 ? 'valid' : how.join(','),
  };
}
