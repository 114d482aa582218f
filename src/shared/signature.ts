// Webhook signatures (api.md, Events): HMAC-SHA256 keyed with the subscription secret's UTF-8
// bytes over `timestamp + "." + raw body`, sent as `sha256=<hex>`. The sandbox signs with this
// module and the CLI verifies with it, so the two can never disagree about the bytes.
import { createHmac, type Hmac, timingSafeEqual } from 'node:crypto';

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

/** An HMAC that has taken `timestamp + "."`: the raw body's bytes follow, as they come. */
function keyed(secret: string, timestamp: string): Hmac {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(`${timestamp}.`, 'utf8'));
}

function digest(secret: string, timestamp: string, body: Uint8Array): Buffer {
  return keyed(secret, timestamp).update(body).digest();
}

export function sign(secret: string, timestamp: number | string, body: Uint8Array | string): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return `sha256=${digest(secret, String(timestamp), bytes).toString('hex')}`;
}

/** The body as it arrives, chunk by chunk, for a payload too large to hold (verify-signature). */
export interface StreamVerifyInput extends Omit<VerifyInput, 'body'> {
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

type Parsed = { check: SignatureCheck } | { timestamp: string; given: Buffer; ageSeconds: number };

/** The checks that need no body: missing and malformed values. */
function parse(input: Omit<VerifyInput, 'body'>): Parsed {
  const { timestamp, signature } = input;
  if (timestamp === undefined || timestamp === '' || signature === undefined || signature === '') {
    return { check: { valid: false, reason: 'missing', ageSeconds: null } };
  }
  const ts = timestamp.trim();
  if (!TIMESTAMP.test(ts)) return { check: { valid: false, reason: 'malformed', ageSeconds: null } };
  const ageSeconds = Math.trunc(input.nowSeconds) - Number(ts);
  const match = SIGNATURE.exec(signature.trim());
  if (!match || match[1] === undefined) return { check: { valid: false, reason: 'malformed', ageSeconds } };
  return { timestamp: ts, given: Buffer.from(match[1], 'hex'), ageSeconds };
}

function judge(given: Buffer, expected: Buffer, ageSeconds: number, toleranceSeconds: number): SignatureCheck {
  // Both are 32 bytes here, so timingSafeEqual cannot throw on a length difference.
  if (!timingSafeEqual(given, expected)) return { valid: false, reason: 'mismatch', ageSeconds };
  // Written so that a clock or tolerance that is not a number (NaN) fails closed, as stale.
  if (!(Math.abs(ageSeconds) <= toleranceSeconds)) return { valid: false, reason: 'stale', ageSeconds };
  return { valid: true, reason: null, ageSeconds };
}

export function verifySignature(input: VerifyInput): SignatureCheck {
  const parsed = parse(input);
  if ('check' in parsed) return parsed.check;
  return judge(parsed.given, digest(input.secret, parsed.timestamp, input.body), parsed.ageSeconds, input.toleranceSeconds);
}

/**
 * verifySignature over a body read as it streams: the same rules, in constant memory. The body
 * is always read to its end, so that a read error is reported whatever the values say.
 */
export async function verifySignatureStream(input: StreamVerifyInput): Promise<SignatureCheck> {
  const parsed = parse(input);
  if ('check' in parsed) {
    for await (const _ of input.body);
    return parsed.check;
  }
  const hmac = keyed(input.secret, parsed.timestamp);
  for await (const chunk of input.body) hmac.update(chunk);
  return judge(parsed.given, hmac.digest(), parsed.ageSeconds, input.toleranceSeconds);
}
