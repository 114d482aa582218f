// One delivery as the service sends it (api.md, Events): the recording.completed payload and
// the four x-service-* headers. The sandbox's worker sends deliveries built here, and
// `rfs webhooks sign` / `rfs webhooks trigger` build theirs here too, so a test delivery is
// byte for byte what the service would send.
import { SIGNATURE_HEADERS } from './schemas.js';
import { sign } from './signature.js';
import type { WEBHOOK_EVENTS } from './vocabulary.js';

// Deliveries are one recording's metadata (api.md, Payload shape): a few kilobytes. Receivers
// (webhooks listen) refuse a larger body, and webhooks sign signs no larger one.
export const MAX_DELIVERY_BYTES = 1024 * 1024;

export const COMPLETED_EVENT: (typeof WEBHOOK_EVENTS)[number] = 'recording.completed';

/** data.apiUrl: the path of the recording's detail endpoint. */
export function recordingApiPath(recordingId: string): string {
  return `/api/v1/recordings/${encodeURIComponent(recordingId)}`;
}

/** The recording's fields that a payload's data carries (api.md, Payload shape), in that order. */
const DATA_FIELDS = [
  'id',
  'title',
  'status',
  'priority',
  'author',
  'client',
  'matter',
  'createdAt',
  'updatedAt',
  'lastSyncedAt',
  'syncCount',
] as const;

/** A payload's data from a recording as the API returns it (list item or detail): only those fields, plus apiUrl. */
export function payloadDataOf(recording: { id: string } & Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const name of DATA_FIELDS) data[name] = recording[name] ?? null;
  data.apiUrl = recordingApiPath(recording.id);
  return data;
}

/** The raw body: `{id, event, data}`, the delivery id repeated as the payload's id. */
export function deliveryBody(deliveryId: string, event: string, data: Record<string, unknown>): string {
  return JSON.stringify({ id: deliveryId, event, data });
}

export interface SigningInput {
  secret: string;
  /** Whole Unix seconds. */
  timestamp: number;
  body: Uint8Array | string;
  event: string;
  deliveryId: string;
}

/** The four x-service-* headers of api.md (Delivery request headers) for one body. */
export function deliveryHeaders(o: SigningInput): Record<(typeof SIGNATURE_HEADERS)[keyof typeof SIGNATURE_HEADERS], string> {
  return {
    [SIGNATURE_HEADERS.signature]: sign(o.secret, o.timestamp, o.body),
    [SIGNATURE_HEADERS.timestamp]: String(o.timestamp),
    [SIGNATURE_HEADERS.event]: o.event,
    [SIGNATURE_HEADERS.delivery]: o.deliveryId,
  };
}
