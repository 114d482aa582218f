// Columns that say nothing, in a real terminal at 80 and 120 columns: a column
// whose value the filter fixes is left out first (STATUS of a list of one status, FILED of the
// unsynced list, STATUS of `deliveries list --status failed`, EVENTS while the API knows one
// event), then columns go in the documented order (README, "Tables"); `--sync-state all`
// keeps FILED, `deliveries list --status failed` keeps SUBSCRIPTION, `webhooks list` keeps the
// URL whole. Each screen is compared exactly with the one under test/tty/__screens__/.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { page, recording } from '../helpers/fixtures.js';
import { needs, TMUX } from '../helpers/platform.js';
import { scenarioTerminal } from '../helpers/scenario-terminal.js';
import { rfsLines } from '../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('./__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const KEY = 'service_pk_ttyFixedKEY_0123456789';
const OLD = '2025-06-28T10:00:00.000Z';

// Ids as long as the service's (rec_ and 16 characters).
const rec = (n: number, o: Record<string, unknown>) => ({ ...recording(n, o), id: `rec_fixedColumns${String(n).padStart(4, '0')}` });
const recordings = [
  rec(1, { title: 'Intake call', priority: 'LOW', updatedAt: OLD }),
  rec(2, { title: 'Quarterly review with Meridian Health Partners', priority: 'URGENT', updatedAt: OLD }),
];
const filed = [
  rec(1, { title: 'Intake call', priority: 'LOW', updatedAt: OLD }),
  rec(2, {
    title: 'Quarterly review with Meridian Health Partners',
    updatedAt: OLD,
    syncCount: 2,
    lastSyncedAt: '2025-06-29T08:00:00.000Z',
  }),
];
const delivery = (n: number, subscription: string) => ({
  id: `dlv_fixedColumnsDlv000${n}`,
  subscriptionId: subscription,
  event: 'recording.completed',
  recordingId: `rec_fixedColumns000${n}`,
  status: 'FAILED',
  attempts: 5,
  lastAttemptAt: `2025-06-2${n}T10:1${n}:00Z`,
  lastResponseStatus: 503,
  createdAt: OLD,
});
const webhooks = [
  {
    id: 'wh_fixedColumnsHook01',
    url: 'https://hooks.example.com/rfs/recordings',
    events: ['recording.completed'],
    createdAt: OLD,
  },
  { id: 'wh_fixedColumnsHook02', url: 'http://127.0.0.1:8787/', events: ['recording.completed'], createdAt: OLD },
];

const cases: { name: string; args: string[]; body: unknown }[] = [
  { name: 'recordings-default', args: ['recordings', 'list'], body: page(recordings, null) },
  { name: 'recordings-all', args: ['recordings', 'list', '--sync-state', 'all'], body: page(filed, null) },
  {
    name: 'deliveries-failed',
    args: ['deliveries', 'list', '--status', 'failed'],
    body: { data: [delivery(1, 'wh_fixedColumnsHook01'), delivery(2, 'wh_fixedColumnsHook02')], meta: { count: 2 } },
  },
  { name: 'webhooks', args: ['webhooks', 'list'], body: page(webhooks, null) },
];

describe.skipIf(!TMUX.met)(needs(TMUX, 'columns fixed by the filter, in a terminal'), () => {
  const t = scenarioTerminal('rfs-tty-fixed-', KEY);

  for (const c of cases) {
    for (const columns of [80, 120]) {
      it(`${c.args.join(' ')} at ${columns} columns`, async () => {
        t.server.queue({ body: c.body });
        const name = `${c.name}-${columns}`;
        await t.term.run(name, c.args, { columns, rows: 20 });
        expect(await t.term.exitStatus(name)).toBe(0);
        const screen = rfsLines(await t.term.screen(name)).join('\n');
        const file = join(SCREENS, `fixed-${c.name}-${columns}.txt`);
        if (RECORD) writeFileSync(file, `${screen}\n`);
        expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
        for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      });
    }
  }
  // cli.md, Output: a wide terminal shows whole values. At 200 columns a 72-character title and
  // long names do not all fit beside every column: MATTER, first in the documented order, goes
  // and every title is whole, rather than the title cut while the names stay.
  it('recordings list --sync-state all at 200 columns shows a 72-character title whole', async () => {
    const long = 'Witness interview: Łódź Textiles Sp. z o.o. - Employment tribunal claims';
    expect(long).toHaveLength(72);
    const wide = [
      rec(1, {
        title: long,
        priority: 'URGENT',
        updatedAt: OLD,
        author: { id: 'usr_2', name: 'Katarzyna Lindqvist', email: 'k@example.com' },
        client: { id: 'cli_2', name: 'Pinecrest Housing Association', referenceNumber: 'C-002' },
        matter: { id: 'mat_2', name: 'Probate and estate administration', referenceNumber: 'M-002' },
      }),
      rec(2, { title: 'Intake call', priority: 'LOW', updatedAt: OLD, syncCount: 1, lastSyncedAt: '2025-06-29T08:00:00.000Z' }),
    ];
    t.server.queue({ body: page(wide, null) });
    await t.term.run('recordings-all-200', ['recordings', 'list', '--sync-state', 'all'], { columns: 200, rows: 20 });
    expect(await t.term.exitStatus('recordings-all-200')).toBe(0);
    const screen = rfsLines(await t.term.screen('recordings-all-200'));
    expect(screen[0]).toMatch(/^ID\s+TITLE\s+PRIORITY\s+AUTHOR\s+CLIENT\s+UPDATED\s+FILED$/);
    expect(screen[1]).toContain(long);
    expect(screen[1]).toContain('Pinecrest Housing Association');
    expect(screen.join('\n')).not.toContain('…');
    for (const line of screen) expect(line.length).toBeLessThanOrEqual(200);
  });
});
