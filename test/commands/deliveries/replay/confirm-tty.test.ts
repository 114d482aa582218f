// In a real terminal: `deliveries replay --all-failed` asks with the table that
// `--dry-run` prints (whole ids in columns, columns dropped on a narrow terminal, never an id
// list wrapped mid-id), at 60, 80, 120 and 200 columns. Each screen is compared exactly with the
// one recorded under test/tty/__screens__/ (RFS_TTY_RECORD=1 writes them anew; read the diff
// before committing one). Answering n sends nothing: the scenario server gets only the list.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { needs, TMUX } from '../../../helpers/platform.js';
import { scenarioTerminal } from '../../../helpers/scenario-terminal.js';
import { rfsLines } from '../../../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('../../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const WIDTHS = [60, 80, 120, 200] as const;
const KEY = 'service_pk_ttyReplayKEY_0123456789';

const failed = (n: number) => ({
  id: `dlv_failedDelivery000${n}`,
  status: 'FAILED',
  subscriptionId: 'wh_subscription0001',
  recordingId: `rec_recording00000${n}`,
  attempts: 5,
  lastAttemptAt: `2025-06-2${n}T10:1${n}:00Z`,
  lastResponseStatus: 503,
});

describe.skipIf(!TMUX.met)(needs(TMUX, 'the replay confirmation in a terminal'), () => {
  const t = scenarioTerminal('rfs-tty-replay-', KEY);

  for (const columns of WIDTHS) {
    it(`at ${columns} columns: the --dry-run table, then the question; n replays nothing`, async () => {
      t.server.queue({
        expect: { method: 'GET', url: /^\/api\/v1\/webhooks\/deliveries\?(?=.*status=FAILED)/ },
        body: { data: [1, 2, 3].map(failed), meta: { count: 3 } },
      });
      // Whether their subscription still exists (those of a deleted one are left out).
      t.server.queue({
        expect: { method: 'GET', url: '/api/v1/webhooks?limit=50' },
        body: { data: [{ id: 'wh_subscription0001', url: 'https://x.test/h', events: ['recording.completed'] }], meta: { count: 1 } },
      });
      const name = `replay-${columns}`;
      await t.term.run(name, ['deliveries', 'replay', '--all-failed'], { columns, rows: 20 });
      const asked = await t.term.waitForInput(name, (s) => s.includes('(y/N)'), 'the question');
      const file = join(SCREENS, `replay-confirm-${columns}.txt`);
      if (RECORD) writeFileSync(file, `${asked}\n`);
      expect(asked).toBe(readFileSync(file, 'utf8').trimEnd());
      for (const n of [1, 2, 3]) expect(asked).toContain(`dlv_failedDelivery000${n}`);
      await t.term.keys(name, 'n', 'Enter');
      expect(await t.term.exitStatus(name)).toBe(0);
      expect(rfsLines(await t.term.screen(name)).slice(-1)).toEqual(['Nothing replayed.']);
      expect(t.server.requests.filter((r) => r.method === 'POST')).toEqual([]);
    });
  }
});
