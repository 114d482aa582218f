// a server that answers hasMore true with the same nextCursor again made
// `--all` and `api --paginate` loop forever (6,969 duplicates in 5 s). A cursor handed back a
// second time is an answer that breaks the contract: exit 7, after the items that were new.
import { describe, expect, it } from 'vitest';
import { page, recording } from '../helpers/fixtures.js';
import { scenarioCli } from '../helpers/scenario-cli.js';

const scenario = scenarioCli({ name: 'repeated-cursor', key: 'service_pk_repeatedCursor0000', env: { NO_COLOR: '1' } });
const cli = scenario.cli;

describe('a cursor the server gives twice', () => {
  it('recordings list --all: the same nextCursor again is exit 7, with the items read before it printed', async () => {
    scenario.server.queue(
      { expect: { url: /^\/api\/v1\/recordings\?(?!.*cursor=)/ }, body: page([recording(1)], 'SAME', 100) },
      { expect: { url: /cursor=SAME/ }, body: page([recording(2)], 'SAME', 100) },
    );
    const { t, run } = cli(['recordings', 'list', '--all', '-o', 'ndjson']);
    expect(await run()).toBe(7);
    expect(
      t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['rec_0001', 'rec_0002']);
    expect(t.stderr()).toMatch(/^error: the server's answer repeats a cursor: page 2 says there is more/m);
    expect(scenario.server.requests).toHaveLength(2);
  });

  it('a loop of two cursors (A, B, A) is caught as well', async () => {
    scenario.server.queue(
      { body: page([recording(1)], 'A', 100) },
      { expect: { url: /cursor=A/ }, body: page([recording(2)], 'B', 100) },
      { expect: { url: /cursor=B/ }, body: page([recording(3)], 'A', 100) },
    );
    const { t, run } = cli(['recordings', 'list', '--all', '-o', 'json']);
    expect(await run()).toBe(7);
    expect((JSON.parse(t.stdout()) as { id: string }[]).map((r) => r.id)).toEqual(['rec_0001', 'rec_0002', 'rec_0003']);
  });

  it('the cursor given with --cursor, handed back, is caught too', async () => {
    scenario.server.queue({ expect: { url: /cursor=START/ }, body: page([recording(1)], 'START', 100) });
    const { run } = cli(['recordings', 'list', '--all', '--cursor', 'START', '-o', 'ndjson']);
    expect(await run()).toBe(7);
  });

  it('api --paginate: the same nextCursor again is exit 7', async () => {
    scenario.server.queue(
      { body: { data: [{ id: 'wh_1' }], meta: { hasMore: true, nextCursor: 'SAME' } } },
      { expect: { url: /cursor=SAME/ }, body: { data: [{ id: 'wh_2' }], meta: { hasMore: true, nextCursor: 'SAME' } } },
    );
    const { t, run } = cli(['api', '/webhooks', '--paginate']);
    expect(await run()).toBe(7);
    expect((JSON.parse(t.stdout()) as { id: string }[]).map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
  });

  it('without --all, a page whose cursor repeats the one asked for is shown with the usual notice', async () => {
    scenario.server.queue({ expect: { url: /cursor=C1/ }, body: page([recording(1)], 'C1') });
    const { t, run } = cli(['recordings', 'list', '--cursor', 'C1', '-o', 'ndjson']);
    expect(await run()).toBe(0);
    expect(t.stderr()).toContain('--cursor C1');
  });

  it('recordings list --all: hasMore true with nextCursor null is exit 7, with the items read printed', async () => {
    scenario.server.queue(
      { body: page([recording(1)], 'C1', 100) },
      { expect: { url: /cursor=C1/ }, body: { data: [recording(2)], meta: { count: 1, limit: 100, hasMore: true, nextCursor: null } } },
    );
    const { t, run } = cli(['recordings', 'list', '--all', '-o', 'ndjson']);
    expect(await run()).toBe(7);
    expect(
      t
        .stdout()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['rec_0001', 'rec_0002']);
    expect(t.stderr()).toMatch(/^error: the server's answer says there is more after page 2 but gives no cursor/m);
  });

  it('api --paginate: hasMore true without any nextCursor is exit 7', async () => {
    scenario.server.queue({ body: { data: [{ id: 'wh_1' }], meta: { hasMore: true } } });
    const { t, run } = cli(['api', '/webhooks', '--paginate']);
    expect(await run()).toBe(7);
    expect((JSON.parse(t.stdout()) as { id: string }[]).map((w) => w.id)).toEqual(['wh_1']);
    expect(t.stderr()).toContain('gives no cursor');
  });

  it('a page that fills --max-items exactly needs no cursor: hasMore true with nextCursor null there is exit 0', async () => {
    scenario.server.queue({ body: { data: [recording(1), recording(2)], meta: { count: 2, limit: 2, hasMore: true, nextCursor: null } } });
    const { run } = cli(['recordings', 'list', '--all', '--max-items', '2', '-o', 'ndjson']);
    expect(await run()).toBe(0);
  });
});
