// `deliveries summary` in a real terminal at 80 and 120 columns against `rfs sandbox --scenario
// incident`: the built CLI in a private tmux server. The scenario's newest deliveries
// retry live (their counts and ages move from second to second) and its receivers' ports are
// chosen at start, so the screen is checked line by line for what must hold, with the columns
// kept: every line within the width, the deleted subscription's FAILED groups present and
// marked, every count of a full list `N+` with its OLDEST as a bound. Exact screens of the same
// layout over fixed data: summary-screens.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RememberedSubscriptions } from '../../../../src/config/remembered-subscriptions.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { rfsLines, startTerminal, type Terminal, terminalEnv } from '../../../helpers/tmux.js';

describe.skipIf(!TMUX.met)(needs(TMUX, 'deliveries summary against --scenario incident, in a terminal'), () => {
  let sandbox: RunningSandbox;
  let term: Terminal;
  let home: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, scenario: 'incident', seed: 42, rateLimit: 0 });
    home = mkdtempSync(join(tmpdir(), 'rfs-tty-scenario-'));
    const receivers = sandbox.scenario?.receivers ?? [];
    ids = Object.fromEntries(receivers.map((r) => [r.name, r.subscriptionId]));
    // rfs saw the deleted subscription before it was deleted (scenario.test.ts says why).
    const memory = RememberedSubscriptions.open({ HOME: home }, { baseUrl: sandbox.baseUrl, profile: 'default' }, Date.now);
    memory.saw([{ id: ids.deleted ?? '', url: receivers.find((r) => r.name === 'deleted')?.url }]);
    expect(await memory.save()).toBe(true);
    term = await startTerminal(terminalEnv(home, { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl }));
  }, 60_000);
  afterAll(async () => {
    await term?.stop();
    await sandbox?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  // The columns kept (their widths follow the live rows: STATUS is 7 cells while any is PENDING).
  const headers: Record<number, string[]> = {
    80: ['SUBSCRIPTION', 'STATUS', 'COUNT', 'LAST ERROR', 'OLDEST'],
    120: ['SUBSCRIPTION', 'STATUS', 'COUNT', 'LAST ERROR', 'OLDEST', 'NEWEST', 'URL'],
  };

  for (const columns of [80, 120]) {
    it(`at ${columns} columns: the deleted subscription's FAILED deliveries present, every bound flagged`, async () => {
      const name = `scenario-summary-${columns}`;
      await term.run(name, ['deliveries', 'summary'], { columns, rows: 40 });
      expect(await term.exitStatus(name)).toBe(8);
      const lines = rfsLines(await term.screen(name));
      expect(lines[0]?.split(/ {2,}/)).toEqual(headers[columns]);
      const table = lines.slice(1).filter((l) => l.startsWith('wh_'));
      for (const line of [lines[0] ?? '', ...table]) expect(line.length).toBeLessThanOrEqual(columns);
      const failedOf = (id: string | undefined) => table.filter((l) => l.startsWith(`${id}  FAILED`));
      expect(failedOf(ids.deleted).length).toBeGreaterThan(0);
      expect(failedOf(ids.failing).length).toBeGreaterThan(0);
      // Both FAILED lists are full (the scenario's 76 and more): counts and OLDEST are bounds.
      for (const line of [...failedOf(ids.deleted), ...failedOf(ids.failing)]) {
        expect(line).toMatch(/FAILED +\d+\+ {2}.* {2}before \d+[smh] ago/);
      }
      if (columns === 120) for (const line of failedOf(ids.deleted)) expect(line).toMatch(/ {2}\(deleted\)$/);
      // The notice wraps at words on a terminal: read it with its line breaks as spaces.
      expect(lines.join('\n').replace(/\s+/g, ' ')).toContain(
        `subscription ${ids.deleted} was deleted: its FAILED deliveries cannot be replayed`,
      );
    });
  }
});
