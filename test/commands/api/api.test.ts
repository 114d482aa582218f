// rfs api (cli.md, api): any request through the one client, against a scenario server that
// records every request, so that "nothing sent" and "sent once" are counted, not assumed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { page, problem, recording } from '../../helpers/fixtures.js';
import { startHeldPages, whenWritten } from '../../helpers/held-pages.js';
import { scenarioCli } from '../../helpers/scenario-cli.js';

const KEY = 'service_pk_apiCMD_s3cr3t_0042';
const scenario = scenarioCli({ name: 'api', key: KEY });
const cli = scenario.cli;

describe('rfs api', () => {
  it('GETs a path below /api/v1 with the key, -f as query parameters, and prints the body as JSON', async () => {
    scenario.server.queue({
      expect: { method: 'GET', url: '/api/v1/recordings?status=COMPLETED&limit=2' },
      body: page([recording(1)], null),
    });
    const { t, run } = cli(['api', '/recordings', '-f', 'status=COMPLETED', '-f', 'limit:=2']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toEqual(page([recording(1)], null));
    // Not a terminal: one line.
    expect(t.stdout()).toBe(`${JSON.stringify(page([recording(1)], null))}\n`);
    const sent = scenario.server.requests[0];
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toBe('');
    expect(t.stderr()).toBe('');
  });

  it('prints the body indented on a terminal', async () => {
    scenario.server.queue({ body: { data: { id: 'x', n: [1] } } });
    const { t, run } = cli(['api', 'recordings/x'], { stdoutIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('{\n  "data": {\n    "id": "x",\n    "n": [\n      1\n    ]\n  }\n}\n');
  });

  it('accepts the path without its leading slash, with a query string, and -X in any case', async () => {
    scenario.server.queue({ expect: { method: 'DELETE', url: '/api/v1/webhooks/wh_1?x=1' }, status: 204 });
    const { t, run } = cli(['api', 'webhooks/wh_1?x=1', '-X', 'delete']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('');
  });

  it('POSTs -f fields as a JSON body with the Idempotency-Key given, the same key on a retry', async () => {
    scenario.server.queue(
      { status: 503 },
      { expect: { method: 'POST', url: '/api/v1/things' }, status: 201, body: { data: { id: 't_1' } } },
    );
    const { t, run } = cli([
      'api',
      '-X',
      'POST',
      'things',
      '-f',
      'name=a',
      '-f',
      'count:=3',
      '-f',
      'tags:=["x"]',
      '--idempotency-key',
      'op-2026-11-25',
    ]);
    expect(await run()).toBe(0);
    expect(scenario.server.requests).toHaveLength(2);
    for (const sent of scenario.server.requests) {
      expect(sent.headers['idempotency-key']).toBe('op-2026-11-25');
      expect(sent.headers['content-type']).toBe('application/json');
      expect(JSON.parse(sent.body)).toEqual({ name: 'a', count: 3, tags: ['x'] });
    }
    expect(JSON.parse(t.stdout())).toEqual({ data: { id: 't_1' } });
  });

  it('does not retry a POST without an Idempotency-Key on 500: exactly one request, exit 6', async () => {
    scenario.server.queue({ ...problem(500, 'INTERNAL_ERROR', 'Internal error'), expect: { method: 'POST' } });
    const { t, time, run } = cli(['api', '-X', 'POST', 'webhooks/deliveries/dlv_1/replay']);
    expect(await run()).toBe(6);
    expect(scenario.server.requests).toHaveLength(1);
    expect(time.waits).toEqual([]);
    expect(JSON.parse(t.stdout())).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(t.stderr()).toContain('error: Internal error (INTERNAL_ERROR, HTTP 500, request req_test)');
  });

  it('retries a filing POST on 500: a filing is idempotent by the contract', async () => {
    const filed = { data: { id: 'rec_1', syncCount: 1 }, meta: { replayed: false } };
    scenario.server.queue(problem(500, 'INTERNAL_ERROR', 'Internal error'), {
      expect: { method: 'POST', url: '/api/v1/recordings/rec_1/filings' },
      body: filed,
    });
    const { t, run } = cli(['api', '-X', 'POST', 'recordings/rec_1/filings', '-f', 'provider=acme', '-f', 'externalId=D-1']);
    expect(await run()).toBe(0);
    expect(scenario.server.requests).toHaveLength(2);
    expect(JSON.parse(t.stdout())).toEqual(filed);
  });

  it('makes one Idempotency-Key for POST /webhooks, as webhooks create does, and resends it', async () => {
    scenario.server.queue({ status: 502 }, { status: 201, body: { data: { id: 'wh_1' } } });
    const { t, run } = cli([
      'api',
      '-X',
      'POST',
      '/webhooks',
      '-f',
      'url=https://h.example/x',
      '-f',
      'events:=["recording.completed"]',
      '-v',
    ]);
    expect(await run()).toBe(0);
    const [first, second] = scenario.server.requests;
    expect(first?.headers['idempotency-key']).toMatch(/^rfs-[0-9a-f-]{36}$/);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    // Once per attempt, in its verbose line, and nowhere else.
    expect(t.stderr().split(String(first?.headers['idempotency-key']))).toHaveLength(3);
    expect(t.stderr()).not.toContain('idempotency key:');
  });

  it('prints the body of a 404 on stdout, the error line on stderr, and exits 4', async () => {
    const answer = problem(404, 'RESOURCE_NOT_FOUND', 'Resource not found', 'req_404');
    scenario.server.queue(answer);
    const { t, run } = cli(['api', 'recordings/rec_nope']);
    expect(await run()).toBe(4);
    expect(JSON.parse(t.stdout())).toEqual(answer.body);
    expect(t.stderr()).toMatch(/^error: Resource not found \(RESOURCE_NOT_FOUND, HTTP 404, request req_404\)\n/);
  });

  it('-i prints the status line and the headers before the body', async () => {
    scenario.server.queue({ status: 200, headers: { 'x-request-id': 'req_i', 'x-beta': 'yes' }, body: { ok: true } });
    const { t, run } = cli(['api', '-i', 'recordings', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    const [head, body] = t.stdout().split('\n\n');
    expect(head?.split('\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toContain('\nx-request-id: req_i');
    expect(head).toContain('\nx-beta: yes');
    expect(body).toBe('{"ok":true}\n');
  });

  it('--input sends a file as the body (POST by default), and -H adds a header', async () => {
    const file = join(scenario.dir, 'body.json');
    writeFileSync(file, '{"raw": [1, 2]}');
    scenario.server.queue({ expect: { method: 'POST', url: '/api/v1/things?dry=true' }, body: {} });
    const { run } = cli(['api', 'things', '--input', file, '-f', 'dry:=true', '-H', 'X-Trace: abc']);
    expect(await run()).toBe(0);
    expect(scenario.server.requests[0]?.body).toBe('{"raw": [1, 2]}');
    expect(scenario.server.requests[0]?.headers['x-trace']).toBe('abc');
  });

  it('--paginate prints the data items of 3 pages as one JSON array, the first page before the last is answered', async () => {
    const pages = [
      [{ id: 'a' }, { id: 'b' }],
      [{ id: 'c' }, { id: 'd' }],
      [{ id: 'e' }, { id: 'f' }],
    ];
    const held = await startHeldPages(pages);
    try {
      const { t, run } = cli(['api', 'recordings?limit=2', '--paginate'], { baseUrl: held.url });
      const done = run();
      const seen = await whenWritten(t.io.stdout, '{"id":"a"}');
      await held.lastAsked;
      // Page 3 is still unanswered: what was printed so far came from pages 1 and 2.
      expect(seen).not.toContain('"e"');
      held.release();
      expect(await done).toBe(0);
      expect(JSON.parse(t.stdout())).toEqual(pages.flat());
      expect(held.requests).toEqual([
        '/api/v1/recordings?limit=2',
        '/api/v1/recordings?limit=2&cursor=c1',
        '/api/v1/recordings?limit=2&cursor=c2',
      ]);
    } finally {
      await held.close();
    }
  });

  it('--paginate with -o ndjson prints one item per line', async () => {
    scenario.server.queue(
      { body: page([{ id: 'a' }], 'c1') },
      { expect: { url: '/api/v1/webhooks?cursor=c1' }, body: page([{ id: 'b' }], null) },
    );
    const { t, run } = cli(['api', 'webhooks', '--paginate', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('{"id":"a"}\n{"id":"b"}\n');
  });

  it.each([
    ['https://evil.example/api/v1/recordings', 'sends the key only to'],
    ['http://127.0.0.1:1/api/v1/recordings', 'sends the key only to'],
    ['//evil.example/api/v1/recordings', 'names another host'],
    ['../../admin', 'leaves /api/v1'],
    ['recordings/%2E%2E/%2e%2e/admin', 'leaves /api/v1'],
    ['recordings/./x', 'leaves /api/v1'],
    ['recordings\\..\\x', 'percent-encode'],
    ['recordings#frag', 'fragment'],
  ])('refuses %s with exit 2 and sends nothing', async (path, why) => {
    const { t, run } = cli(['api', path]);
    expect(await run()).toBe(2);
    expect(t.stderr()).toContain(why);
    expect(t.stdout()).toBe('');
    expect(scenario.server.requests).toHaveLength(0);
  });

  it('adds -f parameters after a query string the path already has', async () => {
    scenario.server.queue({ expect: { url: '/api/v1/recordings?status=COMPLETED&limit=2&x=a+b' }, body: page([], null) });
    const { run } = cli(['api', 'recordings?status=COMPLETED', '-f', 'limit:=2', '-f', 'x=a b']);
    expect(await run()).toBe(0);
  });

  it('accepts an absolute URL below the configured {base_url}/api/v1', async () => {
    scenario.server.queue({ expect: { url: '/api/v1/recordings?limit=1' }, body: page([], null) });
    const { run } = cli(['api', `${scenario.server.url}/api/v1/recordings?limit=1`]);
    expect(await run()).toBe(0);
  });

  it.each([
    [['-H', 'Authorization: Bearer service_pk_other_key_000000'], 'Authorization is refused'],
    [['-H', 'authorization:x'], 'Authorization is refused'],
    [['-H', 'Host: evil.example'], 'refused'],
    [['-f', 'novalue'], 'expected key=value'],
    [['-f', 'n:={bad'], 'is not JSON'],
    [['-f', 'o:={"a":1}'], 'query parameter takes'],
    [['-X', 'PUT'], 'Allowed choices'],
    [['--paginate', '-X', 'POST'], 'GET only'],
    [['--idempotency-key', 'short'], 'invalid --idempotency-key'],
  ])('refuses %j with exit 2 and sends nothing', async (flags, why) => {
    const { t, run } = cli(['api', 'recordings', ...flags]);
    expect(await run()).toBe(2);
    expect(t.stderr()).toContain(why);
    expect(scenario.server.requests).toHaveLength(0);
  });
});
