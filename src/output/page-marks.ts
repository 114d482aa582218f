// Where each page of a list starts in the ndjson a writer produced (its first line), for a
// stream that wants to know: --jq's filter (./jq-output.ts), which turns jq's "(at <stdin>:N)"
// into the cursor to resume from. A plain stdout has no listener, and marks cost nothing.
import type { Writable } from 'node:stream';

export type PageMarkListener = (firstLine: number, cursor: string | undefined) => void;

const listeners = new WeakMap<Writable, PageMarkListener>();

export function onPageMarks(stream: Writable, listener: PageMarkListener): void {
  listeners.set(stream, listener);
}

export function markPage(stream: Writable, firstLine: number, cursor: string | undefined): void {
  listeners.get(stream)?.(firstLine, cursor);
}
