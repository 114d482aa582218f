// The header-dump reader that verify-signature (and later webhooks listen) use for --headers.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors.js';
import { parseHeaderDump, signatureHeadersFromDump } from '../../../src/webhooks/header-dump.js';

describe('parseHeaderDump', () => {
  it('keys headers by lower-case name and trims the values', () => {
    const headers = parseHeaderDump('Content-Type:  application/json \r\nX-Service-Event:recording.completed\r\n');
    expect([...headers.entries()]).toEqual([
      ['content-type', ['application/json']],
      ['x-service-event', ['recording.completed']],
    ]);
  });

  it('skips an HTTP/1.1, HTTP/2 status line or a request line, and a byte order mark', () => {
    for (const start of ['HTTP/1.1 401 Unauthorized', 'HTTP/2 200', 'POST /hooks HTTP/1.1']) {
      expect(parseHeaderDump(`\uFEFF${start}\nA: 1\n`).get('a')).toEqual(['1']);
    }
  });

  it('stops at the blank line before a body', () => {
    const headers = parseHeaderDump('A: 1\n\n{"b": "not: a header"}\nC: 3\n');
    expect([...headers.keys()]).toEqual(['a']);
  });

  it('keeps the headers of the last message when the dump holds several', () => {
    const headers = parseHeaderDump('HTTP/1.1 301 Moved\nA: old\n\nHTTP/1.1 200 OK\nB: new\n\n');
    expect([...headers.entries()]).toEqual([['b', ['new']]]);
  });

  it('joins an obsolete folded line to the header before it, and allows HTTP/2 pseudo-headers', () => {
    const headers = parseHeaderDump(':status: 200\nX-Long: first\n  second\n');
    expect(headers.get(':status')).toEqual(['200']);
    expect(headers.get('x-long')).toEqual(['first second']);
  });

  it('refuses a line that is not a header, naming its number only', () => {
    expect(() => parseHeaderDump('A: 1\nsecret-looking line without colon\n')).toThrow(UsageError);
    expect(() => parseHeaderDump('A: 1\nsecret-looking line without colon\n')).toThrow(/^line 2 of the header dump/);
  });

  it('reads an empty dump as no headers', () => {
    expect(parseHeaderDump('').size).toBe(0);
    expect(parseHeaderDump('\r\n\r\n').size).toBe(0);
  });
});

describe('signatureHeadersFromDump', () => {
  it('returns the two values, undefined when absent and empty when empty', () => {
    expect(signatureHeadersFromDump('x-service-timestamp: 1700000000\n')).toEqual({ timestamp: '1700000000', signature: undefined });
    expect(signatureHeadersFromDump('X-Service-Signature:\nx-service-timestamp: 1\n')).toEqual({ timestamp: '1', signature: '' });
  });

  it('accepts a repeated header with the same value and refuses two different ones', () => {
    expect(signatureHeadersFromDump('x-service-timestamp: 1\nX-Service-Timestamp: 1\n').timestamp).toBe('1');
    expect(() => signatureHeadersFromDump('x-service-timestamp: 1\nX-Service-Timestamp: 2\n')).toThrow(
      /2 different x-service-timestamp values/,
    );
  });
});
