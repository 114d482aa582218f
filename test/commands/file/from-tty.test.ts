// Batch results in a real terminal, at 80 and 120 columns: `file --from`
// rows line up under one header whatever the length of each id (the one table layout of
// output/table.ts), a long DETAIL wraps at words under itself instead of mid-word at column
// one, and the summary counts lines filed before (`already filed`) apart from those filed now.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { problem } from '../../helpers/fixtures.js';
import { needs, TMUX } from '../../helpers/platform.js';
import { scenarioTerminal } from '../../helpers/scenario-terminal.js';
import { rfsLines } from '../../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const KEY = 'service_pk_ttyBatchKEY_0123456789';

const filed = (id: string, syncCount: number, replayed: boolean) => ({
  expect: { method: 'POST', url: `/api/v1/recordings/${id}/filings` },
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

describe.skipIf(!TMUX.met)(needs(TMUX, 'batch results in a terminal'), () => {
  const t = scenarioTerminal('rfs-tty-batch-', KEY, (home) => {
    writeFileSync(
      join(home, 'lines.ndjson'),
      [
        '{"id":"rec_1","externalId":"A-1"}',
        '{"id":"rec_0123456789abcdef","externalId":"A-2"}',
        '{"id":"rec_fedcba9876543210","externalId":"A-3"}',
        '{"id":"rec_22","externalId":"A-4"}',
      ].join('\n'),
    );
  });

  for (const columns of [80, 120]) {
    it(`file --from at ${columns} columns: one header, rows lined up, DETAIL wrapped at words`, async () => {
      t.server.queue(
        filed('rec_1', 2, true),
        filed('rec_0123456789abcdef', 1, false),
        problem(
          409,
          'RECORDING_NOT_COMPLETED',
          'The recording must be COMPLETED before it can be filed with an external document management system',
          'req_batchTty',
        ),
        filed('rec_22', 4, true),
      );
      const name = `batch-${columns}`;
      await t.term.run(name, ['file', '--from', join(t.home, 'lines.ndjson'), '--provider', 'crm'], { columns, rows: 20 });
      expect(await t.term.exitStatus(name)).toBe(8);
      const screen = rfsLines(await t.term.screen(name)).join('\n');
      const file = join(SCREENS, `batch-file-${columns}.txt`);
      if (RECORD) writeFileSync(file, `${screen}\n`);
      expect(screen).toBe(readFileSync(file, 'utf8').trimEnd());
      for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
      expect(screen.split('\n').at(-1)).toBe('1 filed, 2 already filed, 1 failed');
    });
  }
});
