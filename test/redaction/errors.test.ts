// No error object holds a secret: what it keeps is redacted when it is built, so that no later
// printer (a warning, a result line, the report, a stack trace with -v) can leak one.
import { describe, expect, it } from 'vitest';
import { problemFromResponse } from '../../src/api/problem.js';
import { ApiError, ContractError, NetworkError, RfsError } from '../../src/core/errors.js';
import { KnownSecrets, redactSecrets, redactValue } from '../../src/core/redact.js';

const KEY = 'service_pk_LeakAAAA1111/LeakBBBB2222+LeakCCCC3333=wxyz';
const WHSEC = 'whsec_LeakWhsecDDDD4444';

/** Every own and inherited text of an error, as a printer could reach it. */
function everything(error: Error): string {
  const cause = error.cause instanceof Error ? `${error.cause.message}\n${error.cause.stack ?? ''}` : '';
  const fields = error instanceof ApiError ? JSON.stringify([error.title, error.code, error.requestId, error.type, error.body]) : '';
  const extra = error instanceof RfsError ? `${error.hint ?? ''} ${error instanceof ContractError ? (error.path ?? '') : ''}` : '';
  return [error.message, error.stack ?? '', cause, fields, extra].join('\n');
}

describe('errors redact at construction', () => {
  it('message, stack trace, hint and cause, with the exact key given', () => {
    const cause = new Error(`socket said Bearer ${KEY}`);
    const error = new NetworkError(`GET /x?api_key=${encodeURIComponent(KEY)} failed: ${KEY}`, {
      cause,
      hint: `key ${KEY}, ${WHSEC}`,
      apiKey: KEY,
    });
    expect(everything(error)).not.toMatch(/Leak/);
    expect(error.message).toBe('GET /x?api_key=… failed: service_pk_…wxyz');
    expect(error.hint).toBe('key service_pk_…wxyz, whsec_…');
  });

  it('a hint set later is redacted too', () => {
    const error = new RfsError('failed');
    error.hint = `try again with ${WHSEC}`;
    expect(error.hint).toBe('try again with whsec_…');
  });

  it('an ApiError built from an answer that echoes the key everywhere', () => {
    const body = {
      title: `Bearer ${KEY}`,
      code: `CODE_${KEY}`,
      detail: `as JSON "${KEY.replaceAll('/', '\\/')}"`,
      requestId: `req_${KEY}`,
      type: `https://x.example/${encodeURIComponent(KEY)}`,
      nested: { [KEY]: [WHSEC, `${'x'.repeat(290)} ${KEY}`] },
    };
    const error = problemFromResponse({ status: 401, headers: { 'x-request-id': KEY }, body: Buffer.from(JSON.stringify(body)) }, KEY);
    expect(everything(error)).not.toMatch(/Leak/);
    expect(error.title).toBe('Bearer service_pk_…wxyz');
    expect(error.requestId).toBe('req_service_pk_…wxyz');
  });

  it('a title cut to length still loses the whole key (redacted before it is cut)', () => {
    const title = `${'x'.repeat(280)} ${KEY}`;
    const error = problemFromResponse({ status: 500, headers: {}, body: Buffer.from(JSON.stringify({ title })) }, KEY);
    expect(everything(error)).not.toMatch(/Leak/);
  });

  it('a ContractError path', () => {
    const error = new ContractError('bad shape', { path: `data["${KEY}"]`, apiKey: KEY });
    expect(error.path).toBe('data["service_pk_…wxyz"]');
  });
});

describe('redactValue', () => {
  it('keeps a "__proto__" field as a field, redacted, and leaves the prototype alone', () => {
    const value = JSON.parse(`{"__proto__":{"polluted":"${WHSEC}"},"a":["${WHSEC}"]}`) as unknown;
    const out = redactValue(value) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"whsec_…"},"a":["whsec_…"]}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('redactSecrets', () => {
  it('a secret query value inside JSON text ends at the quote: the JSON around it survives', () => {
    const text = JSON.stringify({ instance: `/x?token=abc&secret=${WHSEC}`, next: 'kept' });
    expect(JSON.parse(redactSecrets(text))).toEqual({ instance: '/x?token=…&secret=…', next: 'kept' });
  });

  it('KnownSecrets removes every key it was given, in every form, and the patterns without one', () => {
    const secrets = new KnownSecrets();
    expect(secrets.redact(`${WHSEC} ${KEY}`)).toBe('whsec_… service_pk_…1111/LeakBBBB2222+LeakCCCC3333=wxyz');
    secrets.add(KEY);
    expect(secrets.redact(`${KEY} ${encodeURIComponent(KEY)} ${JSON.stringify(KEY)} ${WHSEC}`)).toBe(
      'service_pk_…wxyz service_pk_…wxyz "service_pk_…wxyz" whsec_…',
    );
  });
});
