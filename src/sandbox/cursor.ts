// Opaque keyset cursors. A cursor carries the (createdAt, id) of the last item served, a hash of
// the query it belongs to (filters and workspace) and an expiry, and is signed with a server
// secret: a tampered, foreign, expired or made-up cursor is refused (400 INVALID_CURSOR).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Position } from './recordings.js';

const VERSION = 1;
const MAC_BYTES = 16;
const HEADER_BYTES = 1 + 8 + 8 + 8; // version, expiry (ms), createdAt (ms), query hash
const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;

function queryHash(query: string): Buffer {
  return createHash('sha256').update(query).digest().subarray(0, 8);
}

export class CursorCodec {
  constructor(
    private readonly secret: Buffer,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  private mac(bytes: Buffer): Buffer {
    return createHmac('sha256', this.secret).update(bytes).digest().subarray(0, MAC_BYTES);
  }

  /** `query` names everything the cursor is bound to, e.g. workspace, endpoint and filters. */
  encode(position: Position, query: string): string {
    const id = Buffer.from(position.id, 'utf8');
    const body = Buffer.alloc(HEADER_BYTES + id.length);
    body.writeUInt8(VERSION, 0);
    body.writeDoubleBE(this.now() + this.ttlMs, 1);
    body.writeDoubleBE(position.createdAt, 9);
    queryHash(query).copy(body, 17);
    id.copy(body, HEADER_BYTES);
    return Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** The position, or null for any cursor that is not a live one of this same query. */
  decode(token: string, query: string): Position | null {
    if (!TOKEN.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    // Node's decoder skips stray characters; only the canonical spelling is accepted.
    if (bytes.toString('base64url') !== token || bytes.length <= HEADER_BYTES + MAC_BYTES) return null;
    const body = bytes.subarray(0, bytes.length - MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), this.mac(body))) return null;
    if (body.readUInt8(0) !== VERSION) return null;
    if (body.readDoubleBE(1) < this.now()) return null;
    if (!body.subarray(17, HEADER_BYTES).equals(queryHash(query))) return null;
    const createdAt = body.readDoubleBE(9);
    if (!Number.isFinite(createdAt)) return null;
    return { createdAt, id: body.subarray(HEADER_BYTES).toString('utf8') };
  }
}
