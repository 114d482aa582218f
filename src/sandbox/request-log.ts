// The request log of the control API (sandbox.md, In an integrator's own tests): the /api/v1
// requests the sandbox answered, oldest first, so a test can assert on what its code sent.
// A ring of the last 10,000: recording one costs a few field writes, never a copy of the log.
//
// What a request names is kept bounded and without secrets: 10,000 requests with 15 KB URLs
// took the sandbox from 70 MB to 682 MB, and a key or a webhook secret put in a query string
// (by mistake, or by a test of that mistake) would be handed to anyone reading the log.
import { redactSecrets } from '../core/redact.js';
import type { SandboxKeys } from './keys.js';
import type { FaultKind } from './faults.js';

export const REQUEST_LOG_SIZE = 10_000;
/** The most characters of a path or a query kept in an entry; the rest is cut, with a marker. */
export const MAX_LOGGED_CHARS = 1024;

/**
 * A copy that owns its characters. V8 makes a slice (and a regex match, a split part) of a long
 * string a view into it: an entry holding 1,024 characters cut from a 15 KB URL kept all 15 KB
 * alive, and so did a short path cut from a URL with a 15 KB query. UTF-16
 * code units in and out, so any text, lone surrogates included, comes back exactly.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}

/**
 * Redacted (keys keep their last 4 characters, secrets nothing: core/redact.ts), then cut. The
 * whole text is redacted first, so a cut never leaves part of a key to be shown; it is at most
 * the 16 KiB node accepts as a request's head (server.ts).
 */
function bounded(text: string): string {
  const clean = redactSecrets(text);
  if (clean.length <= MAX_LOGGED_CHARS) return clean;
  const cut = `…[cut: ${clean.length} characters in all]`;
  return `${clean.slice(0, MAX_LOGGED_CHARS - cut.length)}${cut}`;
}

export interface LoggedRequest {
  /** 1, 2, 3…: never reused, not even after a clear, so `since` stays meaningful. */
  seq: number;
  /** When the answer went out, ISO 8601. */
  time: string;
  method: string;
  path: string;
  /**
   * The query string without `?` as sent, "" when there is none; what looks like a key or a
   * secret redacted, and cut past MAX_LOGGED_CHARS (as the path is) with a marker.
   */
  query: string;
  /** The name of the key presented (admin, readOnly, …); null for none or an unknown key. */
  key: keyof SandboxKeys | null;
  /** The answer's status; null when an injected fault reset the connection instead. */
  status: number | null;
  /** The problem's code; null for a success. */
  code: string | null;
  requestId: string;
  /** The injected fault this request got, if any. */
  fault: FaultKind | null;
}

export class RequestLog {
  private readonly ring: (LoggedRequest | undefined)[];
  /** The seq the next entry gets. */
  private next = 1;
  /** The first seq still held. */
  private first = 1;

  constructor(private readonly size = REQUEST_LOG_SIZE) {
    this.ring = new Array<LoggedRequest | undefined>(size);
  }

  add(entry: Omit<LoggedRequest, 'seq'>): void {
    const seq = this.next++;
    // The query redacted as a URL's: `?` in front lets a first `key=…` be seen as a parameter.
    const query = entry.query === '' ? '' : detached(bounded(`?${entry.query}`).slice(1));
    this.ring[seq % this.size] = { seq, ...entry, path: detached(bounded(entry.path)), query };
    if (seq - this.first >= this.size) this.first = seq - this.size + 1;
  }

  /** Entries with a seq above `since`, oldest first. */
  since(since = 0): LoggedRequest[] {
    const out: LoggedRequest[] = [];
    for (let seq = Math.max(this.first, since + 1); seq < this.next; seq++) out.push(this.ring[seq % this.size] as LoggedRequest);
    return out;
  }

  /** The seq of the newest entry ever recorded (0 before the first). */
  get lastSeq(): number {
    return this.next - 1;
  }

  clear(): void {
    this.first = this.next;
    this.ring.fill(undefined);
  }
}
