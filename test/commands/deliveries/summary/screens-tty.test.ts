// `deliveries summary` and `deliveries list` in a real terminal at 60, 80 and 120 columns
// (cli.md, Output: columns on narrow terminals): tables follow the documented drop order — summary
// leaves out NEWEST, then the URL, then OLDEST, then a STATUS that is the same on every row, and never
// cuts LAST ERROR before its code (`connect ECONNREFUSED` whole); an unfiltered `deliveries list`
// keeps SUBSCRIPTION at 80. The incident: a full FAILED list of one subscription (50+, OLDEST a
// bound), a second one's 3, and a deleted subscription rfs remembers, found behind the full list.
// Screens are compared exactly with those under test/tty/__screens__/ (RFS_TTY_RECORD=1 writes
// them anew); times are whole minutes plus 30 s before the request, so ages read the same.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RememberedSubscriptions } from '../../../../src/config/remembered-subscriptions.js';
import { needs, TMUX } from '../../../helpers/platform.js';
import { scenarioTerminal } from '../../../helpers/scenario-terminal.js';
import type { ScriptedResponse } from '../../../helpers/scenario-server.js';
import { rfsLines } from '../../../helpers/tmux.js';

const SCREENS = fileURLToPath(new URL('../../../tty/__screens__/', import.meta.url));
const RECORD = process.env.RFS_TTY_RECORD === '1';
const KEY = 'service_pk_ttyIncidentKEY_0123456789';
const HOOK = 'wh_incidentHookA0000001';
const LOCAL = 'wh_incidentHookB0000002';
const GONE = 'wh_incidentHookD0000003';
const MINUTE = 60_000;

const ago = (minutes: number): string => new Date(Date.now() - minutes * MINUTE - 30_000).toISOString();
const hooks = [
  { id: HOOK, url: 'https://hooks.example.com/rfs/recordings', events: ['recording.completed'], createdAt: '2025-06-28T10:00:00Z' },
  { id: LOCAL, url: 'http://127.0.0.1:8787/', events: ['recording.completed'], createdAt: '2025-06-28T10:00:00Z' },
];

/** FAILED delivery n of a subscription, its last attempt `minutes` ago. */
function failed(subscriptionId: string, n: number, minutes: number, answer: number | string) {
  return {
    id: `dlv_incident${subscriptionId.slice(-2)}${String(n).padStart(6, '0')}`,
    subscriptionId,
    event: 'recording.completed',
    recordingId: `rec_incident${String(n).padStart(8, '0')}`,
    status: 'FAILED',
    attempts: 5,
    lastAttemptAt: ago(minutes),
    lastResponseStatus: typeof answer === 'number' ? answer : null,
    lastError: typeof answer === 'number' ? `HTTP ${answer}` : answer,
    createdAt: ago(minutes),
  };
}

/** The newest 50 of the hook's FAILED deliveries (it has more): 503s and refused connections. */
const hookFailed = () =>
  Array.from({ length: 50 }, (_, i) => failed(HOOK, i, 1 + Math.floor(i / 3), i % 5 === 4 ? 'connect ECONNREFUSED 203.0.113.7:443' : 503));
const localFailed = () => [failed(LOCAL, 1, 2, 500), failed(LOCAL, 2, 3, 500), failed(LOCAL, 3, 4, 500)];
const goneFailed = () => [failed(GONE, 1, 25, 503), failed(GONE, 2, 26, 503)];
const list = (data: unknown[]) => ({ body: { data, meta: { count: data.length } } });
const webhooksPage = { body: { data: hooks, meta: { hasMore: false, nextCursor: null } } };

/** What summary asks, in order: the subscriptions, FAILED (full), per subscription, PENDING. */
function summaryAnswers(): ScriptedResponse[] {
  return [
    { expect: { method: 'GET', url: /\/webhooks\?limit=50$/ }, ...webhooksPage },
    { expect: { url: /deliveries\?status=FAILED&limit=50$/ }, ...list([...localFailed(), ...hookFailed()].slice(0, 50)) },
    { expect: { url: new RegExp(`status=FAILED&subscriptionId=${HOOK}&`) }, ...list(hookFailed()) },
    { expect: { url: new RegExp(`status=FAILED&subscriptionId=${LOCAL}&`) }, ...list(localFailed()) },
    { expect: { url: new RegExp(`status=FAILED&subscriptionId=${GONE}&`) }, ...list(goneFailed()) },
    { expect: { url: /deliveries\?status=PENDING&limit=50$/ }, ...list([]) },
  ];
}

describe.skipIf(!TMUX.met)(needs(TMUX, 'incident tables in a terminal'), () => {
  const t = scenarioTerminal('rfs-tty-incident-', KEY);

  const screen = async (name: string, args: string[], columns: number, exit: number): Promise<string> => {
    await t.term.run(name, args, { columns, rows: 40 });
    expect(await t.term.exitStatus(name)).toBe(exit);
    const text = rfsLines(await t.term.screen(name)).join('\n');
    const file = join(SCREENS, `${name}.txt`);
    if (RECORD) writeFileSync(file, `${text}\n`);
    expect(text).toBe(readFileSync(file, 'utf8').trimEnd());
    // The table's lines (stderr's notices after it wrap as the terminal wraps them).
    for (const line of text.split('\n').filter((l) => !l.startsWith('subscription '))) expect(line.length).toBeLessThanOrEqual(columns);
    return text;
  };

  for (const columns of [60, 80, 120]) {
    it(`deliveries summary at ${columns} columns: bounds flagged, the deleted subscription's FAILED present`, async () => {
      // rfs saw the deleted subscription before (webhooks list, create or listen --subscribe).
      const memory = RememberedSubscriptions.open({ HOME: t.home }, { baseUrl: t.server.url, profile: 'default' }, Date.now);
      memory.saw([{ id: GONE, url: 'https://old.example.com/hook' }]);
      expect(await memory.save()).toBe(true);
      t.server.queue(...summaryAnswers());
      const text = await screen(`incident-summary-${columns}`, ['deliveries', 'summary'], columns, 8);
      expect(text).toContain(`${GONE}`);
      expect(text).toMatch(new RegExp(`${HOOK}\\s+(FAILED\\s+)?\\d+\\+`));
      if (columns >= 80) expect(text).toMatch(new RegExp(`${HOOK}.*before \\d+m ago`));
      expect(text).toContain('connect ECONNREFUSED');
    });

    it(`deliveries list without a filter at ${columns} columns`, async () => {
      t.server.queue({ expect: { url: /deliveries\?limit=50$/ }, ...list([...localFailed(), ...hookFailed().slice(0, 4)]) });
      const text = await screen(`incident-list-${columns}`, ['deliveries', 'list'], columns, 0);
      if (columns >= 80) expect(text.split('\n')[0]).toContain('SUBSCRIPTION');
    });
  }
});
