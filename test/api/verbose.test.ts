import { describe, expect, it } from 'vitest';
import { apiPath } from '../../src/api/types.js';
import { formatAttemptLine, redactSecrets } from '../../src/api/verbose.js';
import { closedPort } from '../helpers/scenario-server.js';
import { KEY, problem, rejection, useScenario } from './support.js';

const scenario = useScenario();

describe('verbose lines', () => {
  it('prints one line per attempt: method, path and query, status, duration, request id, attempt, wait', async () => {
    scenario.server.queue(
      { ...problem(503, 'INTERNAL_ERROR', 'Down', 'req_1') },
      { status: 200, headers: { 'x-request-id': 'req_2' }, body: {} },
    );
    const lines: string[] = [];
    await scenario.client({ log: (l) => lines.push(l) }).request({ method: 'GET', path: '/recordings', query: { limit: 1 }, schema: null });
    expect(lines).toEqual([
      'GET /api/v1/recordings?limit=1 → 503 INTERNAL_ERROR · 0 ms · request req_1 · attempt 1/6 · retry in 0.5 s',
      'GET /api/v1/recordings?limit=1 → 200 · 0 ms · request req_2 · attempt 2/6',
    ]);
  });

  it('shows the Idempotency-Key, network failures, and the end of the retries', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const client = scenario.client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, log: (l) => lines.push(l) });
    await rejection(
      client.request({ method: 'POST', path: '/webhooks', headers: { 'Idempotency-Key': 'rfs-key-12345678' }, body: {}, schema: null }),
    );
    expect(lines).toEqual([
      'POST /api/v1/webhooks → connection refused (ECONNREFUSED) · 0 ms · attempt 1/2 · idempotency-key rfs-key-12345678 · retry in 0.5 s',
      'POST /api/v1/webhooks → connection refused (ECONNREFUSED) · 0 ms · attempt 2/2 · idempotency-key rfs-key-12345678 · giving up',
    ]);
  });

  it('says that a long Retry-After is waited for up to 120 s', async () => {
    scenario.server.queue({ status: 429, headers: { 'retry-after': '600' } }, { body: {} });
    const lines: string[] = [];
    await scenario.client({ log: (l) => lines.push(l) }).request({ method: 'GET', path: '/recordings', schema: null });
    expect(lines[0]).toBe('GET /api/v1/recordings → 429 HTTP_429 · 0 ms · attempt 1/6 · retry in 120 s');
    expect(lines).toHaveLength(2);
  });

  it('never prints the API key, webhook secrets or signatures', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const messages: string[] = [];
    scenario.server.queue({ status: 500 }, { body: {} });
    const live = scenario.client({ log: (l) => lines.push(l) });
    const dead = scenario.client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0, log: (l) => lines.push(l) });
    const request = {
      method: 'GET' as const,
      path: apiPath('recordings', KEY, 'whsec_abcdef0123456789'),
      query: { secret: 'hunter2-plain', token: 'tok-plain', note: KEY, sig: `sha256=${'ab'.repeat(32)}` },
      headers: { 'X-Webhook-Secret': 'whsec_fromheader' },
      schema: null,
    };
    await live.request(request);
    const error = await rejection(dead.request(request));
    messages.push(String(error), (error as Error).message);

    const everything = [...lines, ...messages].join('\n');
    expect(lines).toHaveLength(3);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(encodeURIComponent(KEY));
    expect(everything).not.toContain('0123456789abcdef');
    expect(everything).not.toContain('whsec_abcdef');
    expect(everything).not.toContain('whsec_fromheader');
    expect(everything).not.toContain('hunter2');
    expect(everything).not.toContain('tok-plain');
    expect(everything).not.toContain('abababab');
    expect(everything).not.toMatch(/authorization|bearer/i);
    // What remains is still useful: the redacted key form and the shape of the request.
    expect(everything).toContain('service_pk_…WXYZ');
    expect(lines[0]).toMatch(
      /^GET \/api\/v1\/recordings\/service_pk_…WXYZ\/whsec_…\?secret=…&token=…&note=service_pk_…WXYZ&sig=sha256%3D… → 500/,
    );
  });
});

describe('redactSecrets', () => {
  it('redacts keys anywhere, keeping only the last 4 characters', () => {
    expect(redactSecrets('key=service_pk_abcdefgh1234 and "service_pk_zzzzzzzz9876"')).toBe('key=service_pk_…1234 and "service_pk_…9876"');
  });

  it('redacts the configured key even when it has unusual characters', () => {
    const odd = 'service_pk_a.b+c~d!e*9999';
    expect(redactSecrets(`x ${odd} ${encodeURIComponent(odd)} y`, odd)).toBe('x service_pk_…9999 service_pk_…9999 y');
  });

  it('redacts webhook secrets, signatures and secret-looking query values', () => {
    expect(redactSecrets(`whsec_Abc123 sha256=${'f'.repeat(64)}`)).toBe('whsec_… sha256=…');
    expect(redactSecrets('/x?apiKey=abc&limit=5&client_secret=s3&cursor=c1')).toBe('/x?apiKey=…&limit=5&client_secret=…&cursor=c1');
  });

  it('shows control characters in server text escaped', () => {
    const line = formatAttemptLine({
      method: 'GET',
      target: '/x',
      outcome: '400 BAD\u001b[31m',
      durationMs: 1.6,
      requestId: 'r\u0007',
      attempt: 1,
      attempts: 1,
    });
    expect(line).toBe('GET /x → 400 BAD\\x1b[31m · 2 ms · request r\\x07 · attempt 1/1');
  });
});
