// file --from and deliveries replay as a user sees them (items 8 and 9; cli.md file,
// deliveries): aligned, coloured result rows with every field ndjson has, progress on a
// terminal, and a missing --provider said once, in plain words, with each line's id echoed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problem } from '../../helpers/fixtures.js';
import { scenarioCli } from '../../helpers/scenario-cli.js';

const KEY = 'service_pk_batchTableKEY_0123456789';
const scenario = scenarioCli({ name: 'batch-table', key: KEY, env: { NO_COLOR: '1' } });
const cli = scenario.cli;

const filed = (id: string, syncCount: number, replayed = false) => ({
  body: {
    data: {
      id,
      lastSyncedAt: '2026-11-22T10:00:00Z',
      syncCount,
      syncMetadata: { provider: 'crm', externalId: 'X', filedAt: '2026-11-22T10:00:00Z' },
    },
    meta: { replayed },
  },
});

function lines(...items: string[]): string {
  const file = join(scenario.dir, `batch-${Math.random().toString(36).slice(2)}.ndjson`);
  writeFileSync(file, `${items.join('\n')}\n`);
  return file;
}

describe('file --from results as a table (item 8)', () => {
  it('aligns the rows under a header and shows duplicateOf and every field of a failure', async () => {
    scenario.server.queue(
      filed('rec_a', 1),
      filed('rec_b', 2, true),
      problem(404, 'RESOURCE_NOT_FOUND', 'Resource not found', 'req_9'),
      filed('rec_a', 1, true),
    );
    // Rows are written as each line finishes: ids of one length, as the service's are, line up.
    const file = lines(
      '{"id":"rec_a","externalId":"1"}',
      '{"id":"rec_b","externalId":"2"}',
      '{"id":"rec_c","externalId":"3"}',
      '{"id":"rec_a","externalId":"1"}',
    );
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm'], { stdoutIsTTY: true });
    expect(await run()).toBe(8);
    // ID as wide as the service's ids (rec_ and 16), DETAIL wrapped at words under
    // itself at 80 columns; the summary counts the replays apart from what this run filed.
    expect(t.stdout()).toBe(
      [
        'RESULT  LINE  ID                    DETAIL',
        'ok      1     rec_a                 filed (syncCount 1)',
        'ok      2     rec_b                 already filed (syncCount 2)',
        'FAILED  3     rec_c                 404 RESOURCE_NOT_FOUND: Resource not found',
        '                                    (request req_9)',
        'ok      4     rec_a                 already filed (syncCount 1); same id as line',
        '                                    1',
        '',
      ].join('\n'),
    );
    expect(t.stderr()).toBe('1 filed, 2 already filed, 1 failed\n');
  });

  it('lines up ids of different lengths, and says `0 filed` when every line was filed before', async () => {
    scenario.server.queue(filed('rec_a', 1, true), filed('rec_0123456789abcdef', 3, true));
    const file = lines('{"id":"rec_a","externalId":"1"}', '{"id":"rec_0123456789abcdef","externalId":"2"}');
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm'], { stdoutIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      [
        'RESULT  LINE  ID                    DETAIL',
        'ok      1     rec_a                 already filed (syncCount 1)',
        'ok      2     rec_0123456789abcdef  already filed (syncCount 3)',
        '',
      ].join('\n'),
    );
    expect(t.stderr()).toBe('0 filed, 2 already filed, 0 failed\n');
  });

  it('colours ok green and FAILED red when stdout has colour', async () => {
    scenario.server.queue(filed('rec_a', 1), problem(404, 'RESOURCE_NOT_FOUND', 'Resource not found'));
    const file = lines('{"id":"rec_a","externalId":"1"}', '{"id":"rec_b","externalId":"2"}');
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm'], {
      stdoutIsTTY: true,
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(await run()).toBe(8);
    const [, ok, failed] = t.stdout().split('\n');
    expect(ok).toMatch(/^\x1b\[32mok {4}\x1b\[39m {2}1 {5}rec_a/);
    expect(failed).toMatch(/^\x1b\[31mFAILED\x1b\[39m {2}2 {5}rec_b/);
  });

  it('shows a progress counter on a terminal stderr', async () => {
    scenario.server.queue(filed('rec_a', 1));
    const file = lines('{"id":"rec_a","externalId":"1"}');
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm'], { stdoutIsTTY: true, stderrIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stderr()).toContain('filing line 1 (0 filed, 0 failed so far)');
  });

  it('keeps ndjson as it was for scripts', async () => {
    scenario.server.queue(filed('rec_a', 1), filed('rec_a', 1, true));
    const file = lines('{"id":"rec_a","externalId":"1"}', '{"id":"rec_a","externalId":"1"}');
    const { t, run } = cli(['file', '--from', file, '--provider', 'crm']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      '{"line":1,"id":"rec_a","ok":true,"replayed":false,"syncCount":1}\n{"line":2,"id":"rec_a","ok":true,"replayed":true,"syncCount":1,"duplicateOf":1}\n',
    );
  });
});

describe('file --from without --provider (item 9)', () => {
  it('says once what is missing, echoes each line id and names the field in plain words', async () => {
    scenario.server.queue(filed('rec_c', 1));
    const file = lines(
      '{"id":"rec_a","externalId":"1"}',
      '{"id":"rec_b","externalId":"2"}',
      '{"id":"rec_c","externalId":"3","provider":"crm"}',
      '{"id":"rec_d","provider":"crm","externalId":5}',
      '{"id":"rec_e","provider":"crm","externalId":"6","filedAt":"monday"}',
    );
    const { t, run } = cli(['file', '--from', file]);
    expect(await run()).toBe(8);
    const results = t
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; ok: boolean; error?: { title: string } });
    expect(results.map((r) => r.id)).toEqual(['rec_a', 'rec_b', 'rec_c', 'rec_d', 'rec_e']);
    expect(results.map((r) => r.error?.title)).toEqual([
      '"provider" is missing: give it in the line, or a default with --provider',
      '"provider" is missing: give it in the line, or a default with --provider',
      undefined,
      '"externalId" must be a string',
      '"filedAt" must be an ISO 8601 time such as 2026-11-22T09:30:00Z',
    ]);
    expect(t.stderr().match(/no --provider given/g)).toHaveLength(1);
    expect(t.stdout()).not.toMatch(/Invalid input|expected string/);
  });
});

describe('deliveries replay results as a table (item 8)', () => {
  it('aligns the rows under a header, with every field of a failure', async () => {
    scenario.server.queue(
      { body: { data: { id: 'dlv_1', status: 'PENDING' } } },
      problem(404, 'RESOURCE_NOT_FOUND', 'Delivery not found', 'req_7'),
      // Whether dlv_2 belongs to a deleted subscription: the workspace's
      // subscriptions (none), then the FAILED list, which does not show it.
      { body: { data: [], meta: { count: 0, limit: 50, hasMore: false, nextCursor: null } } },
      { body: { data: [] } },
    );
    const { t, run } = cli(['deliveries', 'replay', 'dlv_1', 'dlv_2'], { stdoutIsTTY: true });
    expect(await run()).toBe(8);
    expect(t.stdout()).toBe(
      [
        'RESULT  DELIVERY                  DETAIL',
        'ok      dlv_1                     replayed (now PENDING)',
        // A 404 that no list explains says what it may be (cli.md, deliveries: evidence, not inference).
        'FAILED  dlv_2                     404 RESOURCE_NOT_FOUND: Delivery not found: no',
        '                                  list shows this delivery; it may be a delivery',
        '                                  of a deleted subscription, which the service',
        '                                  keeps listing but cannot replay (request',
        '                                  req_7)',
        '',
      ].join('\n'),
    );
  });
});
