// Which deliveries a replay takes (cli.md, deliveries, "Evidence, not inference"): each id
// given once however often it is repeated (one POST, the repeats said), and with --all-failed
// only the rows that show FAILED themselves: a row of the FAILED list that says another status
// is not FAILED. Scripted server; the state folder is a fresh one per run.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { scenarioCli } from '../../../helpers/scenario-cli.js';

const KEY = 'service_pk_replayIdsKEY_0123456789ab';
const scenario = scenarioCli({ name: 'replay-ids', key: KEY, env: { NO_COLOR: '1' } });
const state = () => ({ XDG_STATE_HOME: mkdtempSync(join(scenario.dir, 'state-')) });

const row = (id: string, status: string) => ({
  id,
  status,
  subscriptionId: 'wh_1',
  recordingId: 'rec_1',
  lastAttemptAt: '2026-11-22T14:00:00Z',
  lastResponseStatus: 503,
});

it('replays an id given three times once, and says the repeats were dropped', async () => {
  scenario.server.queue({
    expect: { method: 'POST', url: /\/webhooks\/deliveries\/dlv_X\/replay$/ },
    status: 202,
    body: { data: row('dlv_X', 'PENDING') },
  });
  const { t, run } = scenario.cli(['deliveries', 'replay', 'dlv_X', 'dlv_X', 'dlv_X', '--yes', '-o', 'ndjson'], { env: state() });
  expect(await run()).toBe(0);
  expect(scenario.server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  expect(t.stdout().trim().split('\n')).toHaveLength(1);
  expect(t.stderr()).toMatch(/each delivery is replayed once: dropped 2 repeats of dlv_X/);
});

it('--all-failed takes only the rows that show FAILED, and says which rows showed another status', async () => {
  scenario.server.queue(
    {
      expect: { method: 'GET', url: /\/webhooks\/deliveries\?status=FAILED/ },
      body: {
        data: [
          row('dlv_fail', 'FAILED'),
          row('dlv_weird', 'WEIRD'),
          row('dlv_lower', 'failed'),
          { ...row('dlv_none', ''), status: undefined },
        ],
      },
    },
    {
      expect: { method: 'GET', url: /\/webhooks(\?|$)/ },
      body: {
        data: [{ id: 'wh_1', url: 'http://127.0.0.1:9/hook', events: ['recording.completed'] }],
        meta: { hasMore: false, nextCursor: null },
      },
    },
  );
  const { t, run } = scenario.cli(['deliveries', 'replay', '--all-failed', '--dry-run', '-o', 'json'], { env: state() });
  expect(await run()).toBe(0);
  const shown = JSON.parse(t.stdout()) as { id: string }[];
  expect(shown.map((d) => d.id)).toEqual(['dlv_fail']);
  expect(t.stderr()).toMatch(/3 rows of the FAILED list show another status \("WEIRD", "failed", none\): not FAILED, so not replayed/);
  expect(t.stderr()).toMatch(/1 FAILED delivery would be replayed/);
});
