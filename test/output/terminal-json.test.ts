// JSON printed on a terminal shows what a table shows escaped: `rfs api -o table` (pretty JSON)
// and `recordings list -o ndjson` printed U+200B, U+FEFF, U+00AD and tag characters raw, so two
// different ids could look the same. The JSON stays the same JSON: escapes, not changes.
import { describe, expect, it } from 'vitest';
import { ESCAPED_IN_JSON, sanitize } from '../../src/core/sanitize.js';
import { safeJson } from '../../src/output/safe-json.js';
import { page, recording } from '../helpers/fixtures.js';
import { scenarioCli } from '../helpers/scenario-cli.js';

const KEY = 'service_pk_terminalJsonKEY_0123456789';
const scenario = scenarioCli({ name: 'terminal-json', key: KEY, env: { NO_COLOR: '1' } });

const HIDDEN = 'A\u200bB\ufeffC\u00adD\u{e0041}E';
const SHOWN = 'A\\u200bB\\ufeffC\\u00adD\\udb40\\udc41E';

describe('JSON on a terminal', () => {
  it('rfs api -o table shows invisible characters escaped, and the JSON means the same', async () => {
    scenario.server.queue({ body: { data: recording(1, { title: HIDDEN }) } });
    const { t, run } = scenario.cli(['api', 'recordings/rec_0001', '-o', 'table'], { stdoutIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stdout()).toContain(`"title": "${SHOWN}"`);
    expect(t.stdout()).not.toMatch(/[\u200b\ufeff\u00ad]|\udb40/);
    expect((JSON.parse(t.stdout()) as { data: { title: string } }).data.title).toBe(HIDDEN);
  });

  it('recordings list -o ndjson shows them escaped', async () => {
    scenario.server.queue({ body: page([recording(1, { title: HIDDEN })], null) });
    const { t, run } = scenario.cli(['recordings', 'list', '-o', 'ndjson'], { stdoutIsTTY: true });
    expect(await run()).toBe(0);
    expect(t.stdout()).toContain(`"title":"${SHOWN}"`);
    expect((JSON.parse(t.stdout()) as { title: string }).title).toBe(HIDDEN);
  });

  // One list, two printers: every UTF-16 unit sanitize escapes is escaped in JSON, and nothing else.
  it('escapes in JSON exactly what sanitize escapes beyond JSON own escapes', () => {
    const differ: string[] = [];
    for (let code = 0x20; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue; // surrogates: pairs, below
      const c = String.fromCharCode(code);
      const bySanitize = sanitize(c) !== c;
      const byJson = safeJson(c) !== JSON.stringify(c);
      if (bySanitize !== byJson && c !== '\\' && c !== '"') differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
    for (let low = 0xdc00; low <= 0xdcff; low++) {
      const pair = String.fromCharCode(0xdb40, low);
      expect({ low, json: safeJson(pair) !== JSON.stringify(pair) }).toEqual({ low, json: sanitize(pair) !== pair });
    }
    expect(ESCAPED_IN_JSON.global).toBe(true);
  });
});
