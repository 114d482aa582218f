// --jq (cli.md, Output): real jq applied to each item of a list as it streams, to a single
// resource and to the result of `api`; strings raw, other values compact; a program that does
// not compile sends nothing (exit 2); one that fails on an item exits 1 with jq's message.
import { describe, expect, it } from 'vitest';
import { page, recording } from '../helpers/fixtures.js';
import { startHeldPages, whenWritten } from '../helpers/held-pages.js';
import { scenarioCli } from '../helpers/scenario-cli.js';
import { runCli } from '../../src/cli/run.js';

const KEY = 'service_pk_jqTEST_s3cr3t_0007';
const scenario = scenarioCli({ name: 'jq', key: KEY });
const cli = scenario.cli;

describe('--jq', () => {
  it('runs per item over --all: the first result is printed before the last page is answered', async () => {
    const pages = [[recording(1), recording(2)], [recording(3)], [recording(4), recording(5)]];
    const held = await startHeldPages(pages);
    try {
      const { t, run } = cli(['recordings', 'list', '--all', '--limit', '2', '--jq', '.id'], { baseUrl: held.url });
      const done = run();
      const seen = await whenWritten(t.io.stdout, 'rec_0001\n');
      await held.lastAsked;
      expect(seen).not.toContain('rec_0004');
      held.release();
      expect(await done).toBe(0);
      expect(t.stdout()).toBe('rec_0001\nrec_0002\nrec_0003\nrec_0004\nrec_0005\n');
      expect(held.requests).toHaveLength(3);
    } finally {
      await held.close();
    }
  });

  it('prints strings raw, as jq -r, and every other value as compact JSON, one per line', async () => {
    scenario.server.queue({ body: page([recording(1, { title: 'Say "hi"\tthere' }), recording(2)], null) });
    const { t, run } = cli(['recordings', 'list', '-o', 'table', '--jq', '.title, {id, n: .audioDuration}, [.syncCount, null, true]']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe(
      [
        'Say "hi"\tthere',
        '{"id":"rec_0001","n":601}',
        '[0,null,true]',
        'Intake call 2',
        '{"id":"rec_0002","n":602}',
        '[0,null,true]',
        '',
      ].join('\n'),
    );
  });

  it('applies the program to the resource of a single-resource command', async () => {
    const detail = { ...recording(7), transcript: 'Hello.' };
    scenario.server.queue({ body: { data: detail } });
    const { t, run } = cli(['recordings', 'get', 'rec_0007', '--jq', '.id + ": " + .transcript']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('rec_0007: Hello.\n');
  });

  it("applies the program to api's result, and per item with --paginate", async () => {
    scenario.server.queue({ body: page([{ id: 'a' }, { id: 'b' }], 'c1') }, { body: page([{ id: 'c' }], null) });
    const list = cli(['api', 'webhooks', '--paginate', '--jq', '.id']);
    expect(await list.run()).toBe(0);
    expect(list.t.stdout()).toBe('a\nb\nc\n');

    scenario.server.queue({ body: page([{ id: 'x' }], null) });
    const one = cli(['api', 'webhooks', '--jq', '.data | length']);
    expect(await one.run()).toBe(0);
    expect(one.t.stdout()).toBe('1\n');
  });

  it.each([['.data['], ['foo(1)'], ['$nope'], ['.a | ']])('refuses %j with exit 2 before any request is sent', async (program) => {
    const { t, run } = cli(['recordings', 'list', '--all', '--jq', program]);
    expect(await run()).toBe(2);
    expect(scenario.server.requests).toHaveLength(0);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toMatch(/^error: --jq does not compile: jq: error: /);
    // The program runs on each item: the advice shows a per-item program, not a page's.
    expect(t.stderr()).toContain("e.g. --jq '.id'");
    expect(t.stderr()).not.toContain('.data[]');
  });

  it('compiles a program without running it: an endless one is refused or accepted at once', async () => {
    scenario.server.queue({ body: page([recording(1)], null) });
    const { t, run } = cli(['recordings', 'list', '--jq', 'limit(2; repeat(.id))']);
    expect(await run()).toBe(0);
    expect(t.stdout()).toBe('rec_0001\nrec_0001\n');
  });

  it("exits 1 with jq's message when the program fails on an item, after printing the items before it", async () => {
    scenario.server.queue({
      body: page([recording(1, { extra: { a: 'one' } }), recording(2, { extra: 'x' }), recording(3, { extra: { a: 'three' } })], null),
    });
    const { t, run } = cli(['recordings', 'list', '--jq', '.extra.a']);
    expect(await run()).toBe(1);
    expect(t.stdout()).toBe('one\n');
    expect(t.stderr()).toContain('error: --jq: jq: error (at <stdin>:2): Cannot index string with string ("a")');
    expect(t.stderr()).not.toContain('/dev/stdin');
  });

  it('ends a program that never stops with 130 on Ctrl-C, whatever it is doing', async () => {
    scenario.server.queue({ body: page([recording(1)], null) });
    const { t } = cli([]);
    const controller = new AbortController();
    const env = { RFS_CONFIG_DIR: scenario.dir, RFS_API_KEY: KEY, RFS_BASE_URL: scenario.server.url };
    const done = runCli(['recordings', 'list', '--jq', 'repeat(.)'], { ...t.io, env }, { signal: controller.signal });
    await whenWritten(t.io.stdout, '"rec_0001"');
    controller.abort();
    expect(await done).toBe(130);
  });

  it('reports a program that runs out of memory as a jq error (exit 1), never as a bug in rfs', async () => {
    scenario.server.queue({ body: page([recording(1)], null) });
    const { t, run } = cli(['recordings', 'list', '--jq', '[repeat(1)]']);
    expect(await run()).toBe(1);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toContain('error: --jq: jq: error: cannot allocate memory');
    expect(t.stderr()).not.toMatch(/bug|Aborted|ASSERTIONS/);
  }, 60_000);

  it('halts the whole run as jq does, with the exit status halt_error gives', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2), recording(3)], null) });
    const { t, run } = cli(['recordings', 'list', '--jq', 'if input_line_number == 2 then "enough\\n" | halt_error(4) else .id end']);
    expect(await run()).toBe(4);
    expect(t.stdout()).toBe('rec_0001\n');
    expect(t.stderr()).toBe('enough\n');
  });

  it('names the cursor of the page whose item the program failed on, in an --all', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2)], 'c2') }, { body: page([recording(3), recording(4)], null) });
    const { t, run } = cli(['recordings', 'list', '--all', '--jq', 'if .id == "rec_0004" then error("boom") else .id end']);
    expect(await run()).toBe(1);
    expect(t.stdout()).toBe('rec_0001\nrec_0002\nrec_0003\n');
    expect(t.stderr()).toContain('error: --jq: jq: error (at <stdin>:4): boom');
    expect(t.stderr()).toContain('resume with: --cursor c2');
  });

  // cli.md, Output: an error of the program stops the run, and the run says where to resume
  // without skipping anything. Without --all the next page's cursor would skip items 3 to 5 of
  // the failed page: the error's resume line names the failed page's own cursor instead.
  it('after a runtime error without --all, offers no cursor that skips the rest of the failed page', async () => {
    const five = [1, 2, 3, 4, 5].map((n) => recording(n));
    scenario.server.queue({ body: page(five, 'c2') });
    const first = cli(['recordings', 'list', '--limit', '5', '--jq', 'if input_line_number == 3 then error("boom") else .id end']);
    expect(await first.run()).toBe(1);
    expect(first.t.stdout()).toBe('rec_0001\nrec_0002\n');
    expect(first.t.stderr()).toContain('error: --jq: jq: error (at <stdin>:3): boom');
    // The first page was asked without a cursor: no cursor leads back into it, and none past it is offered.
    expect(first.t.stderr()).not.toContain('c2');
    expect(first.t.stderr()).not.toMatch(/more results/);

    scenario.server.queue({ body: page(five, 'c3') });
    const later = cli([
      'recordings',
      'list',
      '--limit',
      '5',
      '--cursor',
      'c2',
      '--jq',
      'if input_line_number == 3 then error("boom") else .id end',
    ]);
    expect(await later.run()).toBe(1);
    expect(later.t.stderr()).toContain('resume with: --cursor c2');
    expect(later.t.stderr()).not.toContain('c3');
  });

  it('starts the "more results" notice on a line of its own after halt_error text without a newline', async () => {
    scenario.server.queue({ body: page([recording(1), recording(2), recording(3)], 'c2') });
    const { t, run } = cli(['recordings', 'list', '--limit', '3', '--jq', 'if input_line_number == 2 then "x" | halt_error else .id end']);
    expect(await run()).toBe(5);
    expect(t.stdout()).toBe('rec_0001\n');
    expect(t.stderr()).toBe('x\nmore results: every page with --all, the next with --cursor c2\n');
  });

  it('refuses a command whose output is not JSON', async () => {
    const { t, run } = cli(['completion', 'bash', '--jq', '.']);
    expect(await run()).toBe(2);
    expect(t.stderr()).toContain('rfs completion takes none of the global flags (given: --jq)');
  });
});
