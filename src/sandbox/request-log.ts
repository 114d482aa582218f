// The request log of the control API (sandbox.md, In an integrator's own tests): the /api/v1
// requests the sandbox answered, oldest first, so a test can assert on what its code sent.
// A ring of the last 10,000: recording one costs a few field writes, never a copy of the log.
import type { SandboxKeys } from './keys.js';
import type { FaultKind } from './faults.js';

export const REQUEST_LOG_SIZE = 10_000;

export interface LoggedRequest {
  /** 1, 2, 3…: never reused, not even after a clear, so `since` stays meaningful. */
  seq: number;
  /** When the answer went out, ISO 8601. */
  time: string;
  method: string;
  path: string;
  /** The raw query string without `?`; "" when there is none. */
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
    this.ring[seq % this.size] = { seq, ...entry };
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
