// Reading the signature headers from a raw header dump (`curl -D`, a proxy log, a saved
// request): `Name: value` lines, names in any case, CRLF or LF, optionally after an HTTP status
// or request line. Values are taken as written; what they mean is for verifySignature to judge.
import { UsageError } from '../core/errors.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const TIMESTAMP_HEADER = 'x-service-timestamp';

const STATUS_LINE = /^HTTP\/\d(?:\.\d)?\s+\d{3}(?:\s.*)?$/;
const REQUEST_LINE = /^[A-Z]+\s+\S+\s+HTTP\/\d(?:\.\d)?$/;
// A token (RFC 9110) as the name; a leading colon allows HTTP/2 pseudo-headers (`:status`).
const HEADER_LINE = /^(:?[!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*:(.*)$/;

const isStartLine = (line: string): boolean => STATUS_LINE.test(line) || REQUEST_LINE.test(line);

/**
 * Every header of the dump, by lower-case name, each with all its values in order. A dump of
 * several responses (`curl -L -D`, a 100 Continue) yields the headers of the last one; a blank
 * line followed by anything else ends the headers (a body may follow them).
 */
export function parseHeaderDump(text: string): Map<string, string[]> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const blank = (k: number): boolean => (lines[k] ?? '').trim() === '';
  let headers = new Map<string, string[]>();
  let i = 0;
  while (i < lines.length && blank(i)) i++;
  while (i < lines.length) {
    // One message: an optional start line, then headers up to a blank line.
    headers = new Map();
    let last: { name: string; index: number } | undefined;
    if (isStartLine(lines[i] ?? '')) i++;
    for (; i < lines.length && !blank(i); i++) {
      const line = lines[i] ?? '';
      if (/^[ \t]/.test(line) && last) {
        // An obsolete folded line continues the previous header's value.
        const values = headers.get(last.name) ?? [];
        values[last.index] = `${values[last.index] ?? ''} ${line.trim()}`.trim();
        continue;
      }
      const match = HEADER_LINE.exec(line);
      if (!match || match[1] === undefined) {
        // The line itself is not shown: a dump may hold an Authorization header or a cookie.
        throw new UsageError(`line ${i + 1} of the header dump is not a "Name: value" header`, {
          hint: 'give a raw header dump such as `curl -D headers.txt` writes',
        });
      }
      const name = match[1].toLowerCase();
      const values = headers.get(name) ?? [];
      values.push((match[2] ?? '').trim());
      headers.set(name, values);
      last = { name, index: values.length - 1 };
    }
    while (i < lines.length && blank(i)) i++;
    // Another message's start line continues the dump; anything else is a body.
    if (i >= lines.length || !isStartLine(lines[i] ?? '')) break;
  }
  return headers;
}

export interface SignatureHeaders {
  /** Undefined when the dump has no such header. */
  signature: string | undefined;
  timestamp: string | undefined;
}

function single(headers: Map<string, string[]>, name: string): string | undefined {
  const values = [...new Set(headers.get(name) ?? [])];
  if (values.length > 1)
    throw new UsageError(`the header dump holds ${values.length} different ${name} values: which one was sent is unclear`);
  return values[0];
}

/** The x-service-signature and x-service-timestamp values of a header dump. */
export function signatureHeadersFromDump(text: string): SignatureHeaders {
  const headers = parseHeaderDump(text);
  return { signature: single(headers, SIGNATURE_HEADER), timestamp: single(headers, TIMESTAMP_HEADER) };
}
