// Webhook signatures (api.md, Events): HMAC-SHA256 keyed with the subscription secret's UTF-8
// bytes over `timestamp + "." + raw body`, sent as `sha256=<hex>`. The sandbox signs with this
// module and the CLI verifies with it, so the two can never disagree about the bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureReason = 'mismatch' | 'stale' | 'malformed' | 'missing';

export interface SignatureCheck {
  valid: boolean;
  reason: SignatureReason | null;
  /** now − timestamp in seconds (negative for a timestamp in the future); null when unreadable. */
  ageSeconds: number | null;
}

export interface VerifyInput {
  secret: string;
  /** The x-service-timestamp value as received. */
  timestamp: string | undefined;
  /** The x-service-signature value as received. */
  signature: string | undefined;
  /** The raw request body, never re-serialised. */
  body: Uint8Array;
  toleranceSeconds: number;
  nowSeconds: number;
}

export { DEFAULT_TOLERANCE_SECONDS } from './vocabulary.js';

// Whole Unix seconds only: ten digits reach the year 2286, and a millisecond value (13 digits)
// is a common mistake that must read as malformed rather than as a time far in the future.
const TIMESTAMP = /^[0-9]{1,10}$/;
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

function digest(secret: string, timestamp: string, body: Uint8Array): Buffer {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(Buffer.from(`${timestamp}.`, 'utf8'));
  hmac.update(body);
  return hmac.digest();
}

export function sign(secret: string, timestamp: number | string, body: Uint8Array | string): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return `sha256=${digest(secret, String(timestamp), bytes).toString('hex')}`;
}

export function verifySignature(input: VerifyInput): SignatureCheck {
  const { timestamp, signature } = input;
  if (timestamp === undefined || timestamp === '' || signature === undefined || signature === '') {
    return { valid: false, reason: 'missing', ageSeconds: null };
  }
  const ts = timestamp.trim();
  if (!TIMESTAMP.test(ts)) return { valid: false, reason: 'malformed', ageSeconds: null };
  const ageSeconds = Math.trunc(input.nowSeconds) - Number(ts);
  const match = SIGNATURE.exec(signature.trim());
  if (!match || match[1] === undefined) return { valid: false, reason: 'malformed', ageSeconds };
  const given = Buffer.from(match[1], 'hex');
  const expected = digest(input.secret, ts, input.body);
  // Both are 32 bytes here, so timingSafeEqual cannot throw on a length difference.
  if (!timingSafeEqual(given, expected)) return { valid: false, reason: 'mismatch', ageSeconds };
  // Written so that a clock or tolerance that is not a number (NaN) fails closed, as stale.
  if (!(Math.abs(ageSeconds) <= input.toleranceSeconds)) return { valid: false, reason: 'stale', ageSeconds };
  return { valid: true, reason: null, ageSeconds };
}
