// The service's ids and secrets: a prefix and base62 characters (sandbox.md: `wh_…`, `dlv_…`,
// `whsec_…`). The sandbox makes them for the resources it serves; `rfs webhooks trigger` makes
// delivery ids of the same form, so a receiver sees what the service would send.
import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bytes into base62 characters (a slight bias from `% 62` does not matter for derived ids). */
export function base62(bytes: Uint8Array, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[(bytes[i % bytes.length] ?? 0) % 62];
  return out;
}

/** Unbiased random base62 from node:crypto, for secrets and ids made at run time. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A delivery id: `dlv_` and 20 characters. */
export function newDeliveryId(): string {
  return `dlv_${randomBase62(20)}`;
}

/** A webhook signing secret: `whsec_` and 32 characters. */
export function newWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}
