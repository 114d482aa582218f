// A delivery id that cannot be one (delivery-id.ts: the API spec gives ids no format) is refused
// with exit 2 before any request (cli.md, exit codes: "local input (nothing sent)"); the scenario
// server counts what reached it. A well-formed id in the same run is not sent either.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { scenarioCli } from '../../../helpers/scenario-cli.js';

const KEY = 'service_pk_replayMalformedKEY_01234';
const scenario = scenarioCli({ name: 'replay-malformed', key: KEY, env: { NO_COLOR: '1' } });
const state = () => ({ XDG_STATE_HOME: mkdtempSync(join(scenario.dir, 'state-')) });

const MALFORMED: [string, string, RegExp][] = [
  ['empty', '', /"" \(it is empty\)/],
  ['a space', 'dlv 1', /"dlv 1" \(it holds whitespace/],
  ['only whitespace', '  ', /" {2}" \(it holds whitespace/],
  ['a slash', '../../webhooks/wh_1', /it holds '\/', '\?' or '#'/],
  ['a query', 'dlv_1?status=FAILED', /it holds '\/', '\?' or '#'/],
  ['a fragment', 'dlv_1#x', /it holds '\/', '\?' or '#'/],
  ['an escape', 'dlv_\u001b[31m1', /"dlv_\\x1b\[31m1" \(it holds whitespace, a control character/],
  ['a bidi override', 'dlv_\u202e1', /"dlv_\\u202e1" \(it holds whitespace, a control character or an invisible one/],
  ['a NUL', 'dlv_\u00001', /it holds whitespace, a control character/],
  ['201 characters', `dlv_${'a'.repeat(197)}`, /"dlv_a{36}…" \(it is longer than 200 characters\)/],
];

for (const [what, id, message] of MALFORMED) {
  it(`refuses an id with ${what}, exit 2, and sends nothing`, async () => {
    const { t, run } = scenario.cli(['deliveries', 'replay', 'dlv_fine', id, '--yes', '-o', 'ndjson'], { env: state() });
    expect(await run()).toBe(2);
    expect(t.stderr()).toMatch(/^error: not a delivery id: /);
    expect(t.stderr()).toMatch(message);
    expect(t.stderr()).toContain('nothing was sent');
    expect(t.stderr()).not.toMatch(/[\u001b\u202e\u0000]/);
    expect(t.stdout()).toBe('');
    expect(scenario.server.requests).toHaveLength(0);
  });
}

it('sends an id of 200 characters, of any printable letters', async () => {
  const id = `dlv_${'é'.repeat(196)}`;
  scenario.server.queue({
    expect: { method: 'POST', url: /\/webhooks\/deliveries\/dlv_%C3%A9.*\/replay$/ },
    status: 202,
    body: { data: {} },
  });
  const { run } = scenario.cli(['deliveries', 'replay', id, '--yes', '-o', 'ndjson'], { env: state() });
  expect(await run()).toBe(0);
  expect(scenario.server.requests).toHaveLength(1);
});
