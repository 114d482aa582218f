// Reads NDJSON input line by line from raw bytes, so that each damaged line can be reported by
// number instead of failing the batch: a BOM, CRLF ends, invalid UTF-8 and over-long lines
// are all handled here, and a line of any length costs at most MAX_LINE_BYTES of memory.
import type { Readable } from 'node:stream';

export const MAX_LINE_BYTES = 1024 * 1024;

export type InputLine = { line: number; text: string } | { line: number; problem: 'blank' | 'invalid-utf8' | 'too-long'; bytes: number };

export async function* readLines(input: Readable, maxBytes = MAX_LINE_BYTES): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let lineNo = 0;

  const finish = (): InputLine => {
    lineNo += 1;
    if (tooLong) return { line: lineNo, problem: 'too-long', bytes: size };
    let bytes = Buffer.concat(parts, Math.min(size, maxBytes + 1));
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { line: lineNo, problem: 'invalid-utf8', bytes: bytes.length };
    }
    if (text.trim() === '') return { line: lineNo, problem: 'blank', bytes: bytes.length };
    return { line: lineNo, text };
  };

  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = data.indexOf(0x0a);
      const piece = nl === -1 ? data : data.subarray(0, nl);
      if (!tooLong) {
        if (size + piece.length > maxBytes) {
          tooLong = true;
          parts = [];
        } else {
          parts.push(piece);
        }
      }
      size += piece.length;
      if (nl === -1) break;
      yield finish();
      parts = [];
      size = 0;
      tooLong = false;
      data = data.subarray(nl + 1);
    }
  }
  // After a final newline there is no further line, even when a chunk ended right on it.
  if (size > 0) yield finish();
}

export function describeProblem(problem: 'blank' | 'invalid-utf8' | 'too-long', bytes: number, maxBytes = MAX_LINE_BYTES): string {
  switch (problem) {
    case 'blank':
      return 'blank line';
    case 'invalid-utf8':
      return 'the line is not valid UTF-8';
    case 'too-long':
      return `the line is ${bytes} bytes long; at most ${maxBytes} are read`;
  }
}
