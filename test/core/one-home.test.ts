// Rules with one home, checked over the source so that a second copy cannot
// come back unnoticed: the machine's time is read in core/clock.ts alone (the lock file's stamp
// and staleness, core/lock.ts, takes it from there), and whether
// a process is alive is asked in core/lock.ts alone (`processAlive`: the lock, the atomic
// write's leftovers, and `webhooks listen --subscribe`'s leftover subscriptions).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** `file:line` of every line of src/ that matches. */
function linesMatching(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const name of readdirSync(SRC, { recursive: true }) as string[]) {
    if (!/\.(ts|cjs|mjs)$/.test(name)) continue;
    readFileSync(join(SRC, name), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) found.push(`${name}:${i + 1}`);
      });
  }
  return found;
}

describe('rules with one home', () => {
  it("reads the machine's time (Date.now(), new Date() without a value) only in core/clock.ts", () => {
    const readers = linesMatching(/\bDate\.now\(\)|\bnew Date\(\)/);
    expect(readers.filter((r) => !r.startsWith('core/clock.ts:'))).toEqual([]);
    expect(readers.some((r) => r.startsWith('core/clock.ts:'))).toBe(true);
  });

  it('asks whether a process is alive (signal 0) only in core/lock.ts', () => {
    const askers = linesMatching(/process\.kill\([^,]+,\s*0\)/);
    expect(askers.filter((r) => !r.startsWith('core/lock.ts:'))).toEqual([]);
    expect(askers).toHaveLength(1);
  });

  // api.md, Limits, each written once (shared/api-limits.ts): doctor once had its own `=== 50`,
  // watch its own 120, and the sandbox a third.
  it('says "a deliveries list of 50 is full" and "120 requests a minute" only in shared/api-limits.ts', () => {
    const code = (pattern: RegExp) => linesMatching(pattern).filter((r) => !r.startsWith('shared/api-limits.ts:'));
    // A comparison of a length with 50, or a list asked for 50 rows, written out.
    expect(code(/\.length\s*(>=|===|==|>|<)\s*50\b|\blimit:\s*50\b.*\b(FAILED|status|deliver)/i)).toEqual([]);
    expect(code(/^(?!\s*(\/\/|\*|\/\*)).*\b(LIST_LIMIT|DELIVERY_LIST_ROWS)\s*=\s*\d/)).toEqual([]);
    // 120 as a number in code (not in a comment, a string or a bucket list of seconds).
    expect(code(/^(?!\s*(\/\/|\*|\/\*))[^'"`]*(=|:|\?\?)\s*120\b/)).toEqual([]);
    expect(linesMatching(/WORKSPACE_REQUESTS_PER_MINUTE = 120\b/)).toEqual(['shared/api-limits.ts:5']);
    expect(linesMatching(/DELIVERY_LIST_ROWS = 50\b/)).toEqual(['shared/api-limits.ts:8']);
  });

  it('knows where the state folder is ($XDG_STATE_HOME/rfs, else ~/.local/state/rfs) only in config/state-folder.ts', () => {
    const knowers = linesMatching(/\.XDG_STATE_HOME\b|['"`]\.local['"`]/);
    expect(knowers.filter((r) => !r.startsWith('config/state-folder.ts:'))).toEqual([]);
    expect(knowers.some((r) => r.startsWith('config/state-folder.ts:'))).toBe(true);
  });

  // cli.md, Global options: a setting's flag (its text, help, default) is its entry in SETTINGS;
  // cli/globals.ts makes commander's options of it and SettingFlags is derived from it, so a
  // flag written out again elsewhere (`new Option('--timeout <seconds>', …)`) is a second copy.
  it("declares a global setting's flag only in config/settings.ts", () => {
    const flags = SETTINGS.flatMap((s) => ('option' in s ? [s.option, ...('shorthand' in s.option ? [s.option.shorthand] : [])] : []));
    expect(flags.length).toBeGreaterThan(5);
    for (const { flags: usage } of flags) {
      const long = /--[a-z0-9-]+/.exec(usage)?.[0];
      // The flag as a quoted declaration: `'--timeout <seconds>'`, `"-o, --output <format>"`, `'--json'`.
      const declaring = new RegExp(`['"](-[a-z], )?${long}( [<[][^'"]*)?['"]`);
      expect(linesMatching(declaring), usage).toEqual([expect.stringMatching(/^config\/settings\.ts:/)]);
    }
  });

  // One clock (core/clock.ts): runCli's `clock` is the run's time — the "now" that output shows
  // (ages, --since, a signature's timestamp), every wait and the retry jitter — and reaches
  // commands as `ctx.clock`. IO once carried a `now` of its own, which a test could set apart.
  it("takes the run's time from one injected clock: RunOptions.clock, carried by the Session; none in IO or Context", () => {
    expect(timeMembers('core/io.ts', 'IO')).toEqual([]);
    expect(timeMembers('cli/run.ts', 'RunOptions')).toEqual(['clock']);
    expect(timeMembers('core/context.ts', 'Session')).toEqual(['clock']);
    expect(timeMembers('commands/context.ts', 'Context')).toEqual([]);
  });

  // cli.md, deliveries, "watch's budget", and rfs mcp's: one budget, kept before every attempt
  // (retries too) by the client's wrapper. watch once had a Budget class of its own beside mcp's.
  it('keeps a budget of requests a minute only in api/budget.ts', () => {
    expect(linesMatching(/\bclass \w*Budget\b/)).toEqual([expect.stringMatching(/^api\/budget\.ts:/)]);
    expect(linesMatching(/\b61_?000\b/).filter((r) => !r.startsWith('api/budget.ts:'))).toEqual([]);
  });
});

/** The members of `interface name` in `file` that carry time: one named for it, a Clock, or a function giving a number or a Date. */
function timeMembers(file: string, name: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const start = text.search(new RegExp(`\\binterface ${name}\\b[^{]*\\{`));
  expect(start, `interface ${name} in ${file}`).toBeGreaterThanOrEqual(0);
  const body = text.slice(text.indexOf('{', start) + 1, text.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??(\(\))?:\s*(.*)$/gm)]
    .filter(
      ([, member = '', call, type = '']) =>
        /^(now|clock|time|today)$/i.test(member) ||
        /\bClock\b/.test(type) ||
        (call === undefined ? /^\(\)\s*=>\s*(number|Date)\b/ : /^(number|Date)\b/).test(type),
    )
    .map(([, member]) => member as string);
}
