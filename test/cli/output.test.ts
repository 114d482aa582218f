// Output shapes, checked exactly: json and ndjson when piped (unknown fields kept), tables on a
// terminal, server text neutralised, and no key or webhook secret in any verbose run.
import { describe, expect, it } from 'vitest';
import { page, recording } from '../helpers/fixtures.js';
import { scenarioCli } from '../helpers/scenario-cli.js';

const KEY = 'service_pk_outputKEY_s3cr3t_4321';
const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuv';
const scenario = scenarioCli({ name: 'output', key: KEY });
const cli = scenario.cli;

describe('json and ndjson', () => {
  it('prints a JSON array of the items when piped, keeping unknown fields', async () => {
    scenario.server.queue({ body: page([recording(1, { futureField: { x: 1 } }), recording(2)], null) });
    const { t, run } = cli(['recordings', 'list']);
    expect(await run()).toBe(0);
    const expected = [recording(1, { futureField: { x: 1 } }), recording(2)];
    expect(t.stdout()).toBe(`[\n${expected.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
    expect(t.stderr()).toBe('');
  });

  it('prints one object per line with -o ndjson', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2)], null) });
    const { t, run } = cli(['recordings', 'list', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(`${JSON.stringify(recording(1))}\n${JSON.stringify(recording(2))}\n`);
  });

  it('prints an empty array for an empty list', async () => {
    scenario.server.queue({ body: page([], null) });
    const { t, run } = cli(['recordings', 'list', '--json']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('[]\n');
  });

  it('prints the data member for one resource', async () => {
    const detail = { ...recording(1), transcript: 'Hello.', extra: true };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0001', '-o', 'json']);
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toEqual(detail);
  });

  it('keeps every field of "not shown" records such as deliveries', async () => {
    const delivery = { id: 'dlv_1', status: 'FAILED', subscriptionId: 'wh_1', somethingNew: [1, 2] };
    scenario.server.queue({ body: { data: [delivery], meta: { count: 1, limit: 50 } } });
    const { t, run } = cli(['deliveries', 'list', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(`${JSON.stringify(delivery)}\n`);
  });
});

describe('terminal', () => {
  const longTitle = 'A very long title about the quarterly review of the Henderson estate planning matter';
  const rows = () =>
    page(
      [
        recording(1),
        recording(2, {
          title: longTitle,
          matter: { id: 'm1', name: 'Estate plan', referenceNumber: 'M-9' },
          syncCount: 2,
          lastSyncedAt: '2026-11-22T08:15:00Z',
        }),
      ],
      null,
    );

  // whole columns go (MATTER, CLIENT, AUTHOR) before TITLE is cut below 24 cells.
  // STATUS (one status per list) and FILED (always `no` in the unsynced list) say
  // the same on every row, so they go first; then MATTER, while the title can still give room.
  it('fits the table into 80 columns, leaving out the columns the filter fixes and MATTER before cutting the title short', async () => {
    scenario.server.queue({ body: rows() });
    const { t, run } = cli(['recordings', 'list'], { stdoutIsTTY: true, columns: 80, env: { NO_COLOR: '1' } });
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      [
        'ID        TITLE                           PRIORITY  AUTHOR     CLIENT    UPDATED',
        'rec_0001  Intake call 1                   HIGH      Ana Silva  Acme Ltd  1d ago',
        'rec_0002  A very long title about the q…  HIGH      Ana Silva  Acme Ltd  1d ago',
        '',
      ].join('\n'),
    );
  });

  // a wide terminal shows whole values (no cap on TITLE).
  it('shows every column of cli.md and whole values on a wide terminal', async () => {
    scenario.server.queue({ body: rows() });
    const { t, run } = cli(['recordings', 'list'], { stdoutIsTTY: true, columns: 200, env: { NO_COLOR: '1' } });
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      [
        'ID        TITLE                                                                                 STATUS     PRIORITY  AUTHOR     CLIENT    MATTER       UPDATED  FILED',
        'rec_0001  Intake call 1                                                                         COMPLETED  HIGH      Ana Silva  Acme Ltd  -            1d ago   no',
        'rec_0002  A very long title about the quarterly review of the Henderson estate planning matter  COMPLETED  HIGH      Ana Silva  Acme Ltd  Estate plan  1d ago   2× 5h ago',
        '',
      ].join('\n'),
    );
  });

  it('shows one recording as a readable key/value view with blocks in sortOrder', async () => {
    const block = (id: string, sortOrder: number, text: string | null) => ({
      id,
      templateName: `Template ${id}`,
      templateId: 't',
      schemaVersion: 1,
      contentRevision: 1,
      sortOrder,
      createdAt: '2026-11-20T09:00:00Z',
      contentText: text,
      contentStatus: text === null ? 'unavailable' : 'available',
    });
    const detail = {
      ...recording(1),
      transcript: 'First paragraph.\nSecond paragraph.',
      notes: [block('n2', 2, 'Second note'), block('n1', 1, 'First note')],
      documents: [block('d1', 1, null)],
    };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0001'], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(await run()).toBe(0);
    const out = t.stdout();
    expect(out).toMatch(/^ID +rec_0001$/m);
    expect(out).toMatch(/^Client +Acme Ltd \(C-001, cli_1\)$/m);
    expect(out.indexOf('First note')).toBeLessThan(out.indexOf('Second note'));
    expect(out).toContain('content unavailable');
    expect(out).toMatch(/Second paragraph\./);
  });

  it('neutralises escape sequences from the server in tables', async () => {
    scenario.server.queue({
      body: page(
        [recording(1, { title: 'Evil \x1b]0;pwned\x07 \x1b[2J title', author: { id: 'u', name: 'Bob\u009b31m', email: 'b@x' } })],
        null,
      ),
    });
    const { t, run } = cli(['recordings', 'list', '--no-color'], { stdoutIsTTY: true, columns: 200 });
    expect(await run()).toBe(0);
    expect(t.stdout()).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(t.stdout()).toContain('\\x1b');
  });

  it('neutralises escape sequences in the detail view', async () => {
    const detail = { ...recording(1), transcript: 'line one\n\x1b[31mred\x1b[0m', title: 'T\x07' };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0001', '--no-color'], { stdoutIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stdout()).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(t.stdout()).toContain('line one');
  });

  it('uses no colour with NO_COLOR and colour with FORCE_COLOR', async () => {
    scenario.server.queue({ body: page([recording(1)], null) }, { body: page([recording(1)], null) });
    const plain = cli(['recordings', 'list'], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(await plain.run()).toBe(0);
    expect(plain.t.stdout()).not.toContain('\x1b[');
    const forced = cli(['recordings', 'list', '-o', 'table'], { env: { FORCE_COLOR: '1' } });
    expect(await forced.run()).toBe(0);
    expect(forced.t.stdout()).toContain('\x1b[1m');
  });
});

describe('secrets', () => {
  it('never prints the key in a verbose run, nor the secret on stderr of webhooks create', async () => {
    const created = {
      status: 201,
      body: {
        data: {
          id: 'wh_1',
          url: 'https://h.example.com/x',
          events: ['recording.completed'],
          secret: SECRET,
          createdAt: '2026-11-22T10:00:00Z',
        },
      },
    };
    scenario.server.queue({ body: page([recording(1)], null) }, { status: 500, body: {} }, created, {
      body: {
        data: [{ id: 'wh_1', url: 'https://h.example.com/x', events: ['recording.completed'] }],
        meta: { count: 1, limit: 50, hasMore: false, nextCursor: null },
      },
    });
    const runs = [
      cli(['recordings', 'list', '-v']),
      cli(['webhooks', 'create', '--url', 'https://h.example.com/x', '-v', '--max-retries', '1']),
      cli(['webhooks', 'list', '-v'], { env: { RFS_DEBUG: '1' } }),
    ];
    for (const r of runs) expect(await r.run()).toBe(0);
    for (const r of runs) {
      expect(r.t.stderr()).toMatch(/attempt/);
      expect(r.t.stderr()).not.toContain(KEY);
      expect(r.t.stderr()).not.toContain(KEY.slice('service_pk_'.length));
      expect(r.t.stderr()).not.toContain(SECRET);
      expect(r.t.stdout()).not.toContain(KEY);
    }
    // The secret is the product of create: on stdout once, with a notice on stderr.
    expect(runs[1]?.t.stdout()).toContain(SECRET);
    expect(runs[1]?.t.stderr()).toMatch(/only this once/);
    expect(scenario.server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('never prints the key in an error, even with --verbose and a stack trace', async () => {
    scenario.server.queue({
      status: 401,
      headers: { 'content-type': 'application/problem+json' },
      body: { title: `bad key ${KEY}`, status: 401, code: 'UNAUTHORIZED', requestId: 'r1' },
    });
    const { t, run } = cli(['recordings', 'list', '-v', '-o', 'json']);
    expect(await run()).toBe(3);
    expect(t.stderr()).toMatch(/UNAUTHORIZED/);
    expect(t.stderr()).not.toContain(KEY);
  });
});

describe('empty lists', () => {
  it('say so on stderr in table mode, and print [] as json', async () => {
    scenario.server.queue({ body: page([], null) }, { body: page([], null) });
    const table = cli(['recordings', 'list'], { stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    expect(await table.run()).toBe(0);
    expect(table.t.stdout()).toBe('');
    expect(table.t.stderr()).toBe('no recordings match\n');
    const json = cli(['recordings', 'list']);
    expect(await json.run()).toBe(0);
    expect(json.t.stdout()).toBe('[]\n');
    expect(json.t.stderr()).toBe('');
  });
});
