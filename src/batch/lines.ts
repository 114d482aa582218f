// Reads NDJSON input line by line from raw bytes, so that each damaged line can be reported by
// number instead of failing the batch: a BOM, CRLF ends, invalid UTF-8 and blank lines are
// handled here. A line longer than MAX_LINE_BYTES ends the read with exit 2
// (core/bounded-read.ts, `boundedLines`): its end may never come (/dev/zero), so a line of any
// length costs at most MAX_LINE_BYTES of memory and the read stops there.
import type { Readable } from 'node:stream';
import { boundedLines } from '../core/bounded-read.js';

/** One filing is at most 1 MiB (a filing's whole body, as `file --metadata @file` takes). */
export const MAX_LINE_BYTES = 1024 * 1024;

export type InputLine = { line: number; text: string } | { line: number; problem: 'blank' | 'invalid-utf8'; bytes: number };

export interface LineSource {
  /** What the input is, for the message of a line too long: "stdin", "the file given to --from". */
  what: string;
  signal?: AbortSignal | undefined;
}

export async function* readLines(input: Readable, source: LineSource, maxBytes = MAX_LINE_BYTES): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let lineNo = 0;
  for await (let bytes of boundedLines(input, { limit: maxBytes, what: source.what, kind: 'one filing', signal: source.signal })) {
    lineNo += 1;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      yield { line: lineNo, problem: 'invalid-utf8', bytes: bytes.length };
      continue;
    }
    if (text.trim() === '') yield { line: lineNo, problem: 'blank', bytes: bytes.length };
    else yield { line: lineNo, text };
  }
}

export function describeProblem(problem: 'blank' | 'invalid-utf8'): string {
  switch (problem) {
    case 'blank':
      return 'blank line';
    case 'invalid-utf8':
      return 'the line is not valid UTF-8';
  }
}
