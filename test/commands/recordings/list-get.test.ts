// recordings list / get, webhooks list and deliveries list as a user sees them (cli.md
// Global options, Output, recordings): notices after the list, nothing on stdout when the first
// page fails, the largest page for --all, rich text and human units, enumerations in any case.
import { describe, expect, it } from 'vitest';
import { page, problem, recording } from '../../helpers/fixtures.js';
import { type CliOptions, scenarioCli } from '../../helpers/scenario-cli.js';

const KEY = 'service_pk_listGetKEY_0123456789ab';
const scenario = scenarioCli({ name: 'list-get', key: KEY, env: { NO_COLOR: '1' } });

function cli(argv: string[], o: CliOptions = {}) {
  const run = scenario.cli(argv, o);
  // stdout and stderr in the order they were written, as one terminal would show them.
  const screen: string[] = [];
  run.t.io.stdout.on('data', (c: string) => screen.push(`out:${c}`));
  run.t.io.stderr.on('data', (c: string) => screen.push(`err:${c}`));
  return { ...run, screen };
}

const query = (n: number): URLSearchParams => new URL(scenario.server.requests[n]?.url ?? '/', 'http://x').searchParams;

describe('the more-results notice (item 3)', () => {
  it('comes after the table, so that it is the last thing on the screen', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2)], 'CUR2') });
    const { screen, run } = cli(['recordings', 'list', '--limit', '2'], { stdoutIsTTY: true, stderrIsTTY: true });
    expect(await run()).toBe(0);
    expect(screen.map((s) => s.slice(0, 4))).toEqual(['out:', 'err:']);
    expect(screen.at(-1)).toBe('err:more results: every page with --all, the next with --cursor CUR2\n');
  });

  it('comes after a json list too, and after a webhooks list', async () => {
    scenario.server.queue(
      { body: page([recording(1)], 'CUR2') },
      { body: page([{ id: 'wh_1', url: 'https://x.example', events: [] }], 'W2') },
    );
    const first = cli(['recordings', 'list', '--json']);
    expect(await first.run()).toBe(0);
    expect(first.screen.at(-1)).toMatch(/^err:more results: every page with --all, the next with --cursor CUR2\n$/);
    const second = cli(['webhooks', 'list'], { stdoutIsTTY: true });
    expect(await second.run()).toBe(0);
    expect(second.screen.at(-1)).toMatch(/^err:more results: every page with --all, the next with --cursor W2\n$/);
  });
});

describe('a failed list (item 5)', () => {
  it('prints nothing on stdout when the first page fails: no [] for jq to count', async () => {
    scenario.server.queue(problem(401, 'UNAUTHORIZED', 'Missing, invalid or revoked API key'));
    const { t, run } = cli(['recordings', 'list', '--all', '--json']);
    expect(await run()).toBe(3);
    expect(t.stdout()).toBe('');
  });

  it('never offers a refused cursor back as the one to resume from', async () => {
    scenario.server.queue(problem(400, 'INVALID_CURSOR', 'Invalid or expired cursor'));
    const { t, run } = cli(['recordings', 'list', '--cursor', 'garbage']);
    expect(await run()).toBe(2);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toContain('start again without --cursor');
    expect(t.stderr()).not.toContain('resume with');
  });

  it('still offers the cursor of a page that failed for a passing reason', async () => {
    scenario.server.queue({ body: page([recording(1)], 'NEXT') }, problem(404, 'RESOURCE_NOT_FOUND', 'gone'));
    const { t, run } = cli(['recordings', 'list', '--all', '-o', 'ndjson', '--max-retries', '0']);
    expect(await run()).toBe(4);
    expect(t.stderr()).toContain('resume with: --cursor NEXT');
  });
});

describe('--all asks for the largest page (item 6)', () => {
  it('100 recordings a page with --all, 50 without, and --limit when given', async () => {
    scenario.server.queue({ body: page([recording(1)], null) }, { body: page([recording(1)], null) }, { body: page([recording(1)], null) });
    expect(await cli(['recordings', 'list', '--all']).run()).toBe(0);
    expect(await cli(['recordings', 'list']).run()).toBe(0);
    expect(await cli(['recordings', 'list', '--all', '--limit', '20']).run()).toBe(0);
    expect([0, 1, 2].map((n) => query(n).get('limit'))).toEqual(['100', '50', '20']);
  });

  it('50 webhooks a page with --all', async () => {
    scenario.server.queue({ body: page([], null) });
    expect(await cli(['webhooks', 'list', '--all']).run()).toBe(0);
    expect(query(0).get('limit')).toBe('50');
  });
});

describe('enumerations in any letter case (item 10)', () => {
  it('sends each value in the API spelling', async () => {
    scenario.server.queue(
      { body: page([], null) },
      { body: { data: [], meta: { count: 0, limit: 50 } } },
      { body: { data: { ...recording(1), transcript: '' } } },
    );
    expect(await cli(['recordings', 'list', '--status', 'archived', '--sync-state', 'ALL', '--include', 'CONTENTJSON']).run()).toBe(0);
    expect(await cli(['deliveries', 'list', '--status', 'failed']).run()).toBe(0);
    expect(await cli(['recordings', 'get', 'rec_0001', '--include', 'contentjson', '-o', 'JSON']).run()).toBe(0);
    expect(Object.fromEntries(query(0))).toMatchObject({ status: 'ARCHIVED', syncState: 'all', include: 'contentJson' });
    expect(query(1).get('status')).toBe('FAILED');
    expect(query(2).get('include')).toBe('contentJson');
  });

  it('holds for every enumerated flag and argument: a shell, an HTTP method, the sync order and log format', async () => {
    const shell = cli(['completion', 'BASH']);
    expect(await shell.run()).toBe(0);
    expect(shell.t.stdout()).toContain('bash completion for rfs');
    scenario.server.queue({ expect: { method: 'DELETE', url: '/api/v1/webhooks/wh_1' }, status: 204 });
    expect(await cli(['api', '-X', 'delete', 'webhooks/wh_1']).run()).toBe(0);
    // Parsed, then refused for the missing --exec: the values themselves were accepted.
    const sync = cli(['sync', '--order', 'PRIORITY', '--log-format', 'JSON', '--provider', 'crm']);
    expect(await sync.run()).toBe(2);
    expect(sync.t.stderr()).toContain('--exec');
    expect(sync.t.stderr()).not.toContain('Allowed choices');
  });

  it('still refuses a value that is none of them, with exit 2 and nothing sent', async () => {
    const { t, run } = cli(['deliveries', 'list', '--status', 'broken']);
    expect(await run()).toBe(2);
    expect(t.stderr()).toContain('Allowed choices are PENDING, SUCCEEDED, FAILED.');
  });
});

const doc = {
  type: 'doc',
  content: [
    { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Meeting summary' }] },
    {
      type: 'paragraph',
      content: [
        { type: 'text', text: 'Key point: ', marks: [{ type: 'bold' }] },
        { type: 'text', text: 'the landlord has indicated that a rent review is likely next year, so we discussed mediation.' },
      ],
    },
    { type: 'heading', attrs: { level: 3 }, content: [{ type: 'text', text: 'Next steps' }] },
    {
      type: 'bulletList',
      content: [
        {
          type: 'listItem',
          content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Instruct counsel for an opinion on the lease' }] }],
        },
        { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Book a room' }] }] },
      ],
    },
    {
      type: 'orderedList',
      attrs: { start: 1 },
      content: [
        { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'File the claim' }] }] },
        { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Serve it' }] }] },
      ],
    },
  ],
};

const block = {
  id: 'blk_1',
  templateName: 'Meeting summary',
  templateId: 'tpl_1',
  schemaVersion: 1,
  contentRevision: 1,
  sortOrder: 1,
  createdAt: '2026-11-20T09:00:00Z',
  contentText: 'Meeting summary\n\nKey point: the landlord…',
  contentStatus: 'available',
  contentJson: doc,
};

describe('recordings get (item 7)', () => {
  it('shows human units and the structure of the rich text, wrapped to the width with its indent', async () => {
    const detail = { ...recording(1, { audioDuration: 518, audioSize: 8_302_968, notes: [block] }), transcript: 'Short.' };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0001'], { stdoutIsTTY: true, columns: 60, env: { TZ: 'UTC' } });
    expect(await run()).toBe(0);
    // The table view asks for the rich text; the first heading, which repeats the label, is left out.
    expect(query(0).get('include')).toBe('contentJson');
    const out = t.stdout();
    expect(out).toMatch(/^Duration {4}8m 38s$/m);
    expect(out).toMatch(/^Audio size {2}7\.9 MB$/m);
    expect(out).toContain(
      [
        'Notes',
        '  Meeting summary (blk_1)',
        '    Key point: the landlord has indicated that a rent review',
        '    is likely next year, so we discussed mediation.',
        '',
        '    ### Next steps',
        '',
        '    • Instruct counsel for an opinion on the lease',
        '    • Book a room',
        '',
        '    1. File the claim',
        '    2. Serve it',
      ].join('\n'),
    );
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('emphasises headings in bold with colour', async () => {
    const detail = { ...recording(1, { notes: [{ ...block, templateName: 'Other' }] }), transcript: '' };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0001'], {
      stdoutIsTTY: true,
      columns: 80,
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(await run()).toBe(0);
    expect(t.stdout()).toContain('\x1b[1m##\x1b[22m \x1b[1mMeeting\x1b[22m \x1b[1msummary\x1b[22m');
  });

  it('asks only for what -o json asked for', async () => {
    scenario.server.queue({ body: { data: { ...recording(1), transcript: '' } } });
    expect(await cli(['recordings', 'get', 'rec_0001']).run()).toBe(0);
    expect(query(0).get('include')).toBeNull();
  });
});

describe('recordings list --include content (item 7)', () => {
  it('shows a line of note text under each row, or why there is none', async () => {
    const note = (text: string | null) => ({ ...block, contentText: text, contentStatus: text === null ? 'unavailable' : 'available' });
    scenario.server.queue({
      body: page(
        [
          recording(1, { notes: [note('First line of the note\n\nand more text that goes on')] }),
          recording(2, { notes: [note(null)] }),
          recording(3, { notes: [] }),
        ],
        null,
      ),
    });
    const { t, run } = cli(['recordings', 'list', '--include', 'content'], { stdoutIsTTY: true, columns: 100 });
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      [
        'ID        TITLE          STATUS     PRIORITY  AUTHOR     CLIENT    MATTER  UPDATED  FILED',
        'rec_0001  Intake call 1  COMPLETED  HIGH      Ana Silva  Acme Ltd  -       1d ago   no',
        // Two parts of the note apart by a blank line, the first without punctuation (a
        // heading): set off by a dash.
        '    First line of the note — and more text that goes on',
        'rec_0002  Intake call 2  COMPLETED  HIGH      Ana Silva  Acme Ltd  -       1d ago   no',
        '    Meeting summary: content unavailable',
        'rec_0003  Intake call 3  COMPLETED  HIGH      Ana Silva  Acme Ltd  -       1d ago   no',
        '    (no notes)',
        '',
      ].join('\n'),
    );
  });
});
