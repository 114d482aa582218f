// `--log-format json` (cli.md, sync): every stderr line of every kind of run —
// a pass with failures, retries, waits and parking under -v, a pass-level failure in --watch, a
// dry run over a damaged journal, usage errors found by commander and by the command — is one
// JSON object in one schema: time (ISO 8601 UTC), level, msg (a sentence, on every line),
// event, then fields that keep one JSON type across all events; `error` always an object.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../../../src/cli/run.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';
import { COMMAND, syncEnv } from './helpers.js';

const LogError = z.strictObject({
  message: z.string().min(1),
  code: z.string().min(1).optional(),
  status: z.number().int().optional(),
  requestId: z.string().min(1).optional(),
});

const LogLine = z.looseObject({
  // ISO 8601 in UTC: the `Z` form only (no offset).
  time: z.iso.datetime(),
  level: z.enum(['debug', 'info', 'warn', 'error']),
  msg: z.string().min(1),
  event: z.string().min(1),
  error: LogError.optional(),
});

type Line = Record<string, unknown>;

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await start({ rateLimit: 0, recordings: 14 });
  dir = mkdtempSync(join(tmpdir(), 'rfs-log-schema-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sync(args: string[], o: { env?: NodeJS.ProcessEnv; clock?: Clock; signal?: AbortSignal } = {}) {
  const t = bufferIO({ env: syncEnv(h, dir, o.env) });
  const code = await runCli(['sync', ...args], t.io, {
    signal: o.signal ?? new AbortController().signal,
    clock: o.clock ?? fakeTime().clock,
  });
  return { code, stderr: t.stderr(), stdout: t.stdout() };
}

/** Every stderr line parsed and checked against the schema; the line itself in the failure. */
function linesOf(stderr: string): Line[] {
  const text = stderr.endsWith('\n') ? stderr.slice(0, -1) : stderr;
  expect(text, 'stderr is empty').not.toBe('');
  return text.split('\n').map((raw) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(`not a JSON line: ${raw}`);
    }
    const parsed = LogLine.safeParse(value);
    if (!parsed.success) throw new Error(`${z.prettifyError(parsed.error)}\nin: ${raw}`);
    // The four keys lead, in this order, as pino and slog write them.
    expect(Object.keys(parsed.data).slice(0, 4), raw).toEqual(['time', 'level', 'msg', 'event']);
    return parsed.data;
  });
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

describe('--log-format json: one schema for every stderr line', () => {
  const all: Line[] = [];

  it('a pass with failures, a parked recording, 429 retries, pacing waits and -v lines', async () => {
    const [victim] = ((await h.api('/recordings?limit=100')).json.data as { id: string }[]).map((r) => r.id);
    // Two filings answered 429: retries, with waits the log reports.
    expect(
      (await h.control('/faults', { rate: 0, script: [{ match: '/filings', method: 'POST', kind: 'rate-limit', times: 2 }] })).status,
    ).toBe(200);
    const r = await sync(
      ['--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'pass.jsonl'), '--max-attempts', '1', '--log-format', 'json', '-v'],
      { env: { FAIL_FOR: victim } },
    );
    expect(r.code).toBe(8);
    const lines = linesOf(r.stderr);
    const events = new Set(lines.map((l) => l.event));
    for (const e of ['pass-start', 'pass-end', 'result', 'wait', 'parked', 'verbose']) expect(events).toContain(e);
    // Each thing is said once, so that a counter over the log counts it once: a parked
    // recording is its `parked` event (level warn), not also a `warning` with its words, and the
    // pass's end is its `pass-end` event, not also a `summary` of the same pass.
    const parked = lines.filter((l) => l.event === 'parked');
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ level: 'warn', id: victim });
    expect(lines.filter((l) => l.msg === parked[0]?.msg)).toHaveLength(1);
    expect(lines.filter((l) => String(l.msg).includes('is parked after'))).toHaveLength(1);
    expect(events).not.toContain('summary');
    expect(lines.at(-1)).toMatchObject({ event: 'pass-end', level: 'info', failed: 1, parked: 0 });
    expect(lines.filter((l) => l.event === 'wait').map((l) => l.kind)).toEqual(expect.arrayContaining(['pacing', 'retry']));
    const failed = lines.find((l) => l.event === 'result' && l.ok === false);
    expect(failed).toMatchObject({ level: 'warn', id: victim, error: { code: 'COMMAND_FAILED' } });
    expect(lines.filter((l) => l.level === 'debug').length).toBeGreaterThan(0);
    all.push(...lines);
  }, 60_000);

  it('a pass-level failure in --watch, and the stop', async () => {
    const time = fakeTime();
    const controller = new AbortController();
    const clock: Clock = {
      ...time.clock,
      async sleep(ms, signal) {
        if (ms === 30_000) controller.abort();
        return time.clock.sleep(ms, signal);
      },
    };
    const r = await sync(
      [
        '--exec',
        COMMAND,
        '--provider',
        'crm',
        '--journal',
        join(dir, 'watch.jsonl'),
        '--watch',
        '--interval',
        '30',
        '--log-format',
        'json',
      ],
      { env: { RFS_BASE_URL: 'http://127.0.0.1:1' }, clock, signal: controller.signal },
    );
    expect(r.code).toBe(0);
    const lines = linesOf(r.stderr);
    expect(lines.find((l) => l.event === 'pass-end')).toMatchObject({ level: 'error', error: { message: expect.any(String) } });
    all.push(...lines);
  }, 30_000);

  it('a run that fails ends with an error event', async () => {
    const r = await sync(['--exec', COMMAND, '--provider', 'crm', '--journal', join(dir, 'fail.jsonl'), '--log-format', 'json'], {
      env: { RFS_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(r.code).toBe(6);
    const lines = linesOf(r.stderr);
    expect(lines.at(-1)).toMatchObject({ level: 'error', event: 'error', exitCode: 6, error: { code: 'NETWORK' } });
    all.push(...lines);
  }, 30_000);

  it('--dry-run over a journal with a damaged line', async () => {
    const journal = join(dir, 'dry.jsonl');
    writeFileSync(journal, 'not json\n');
    const r = await sync([
      '--exec',
      COMMAND,
      '--provider',
      'crm',
      '--journal',
      journal,
      '--dry-run',
      '--log-format',
      'json',
      '-o',
      'ndjson',
    ]);
    expect(r.code).toBe(0);
    const lines = linesOf(r.stderr);
    expect(lines.map((l) => l.event)).toEqual(['warning', 'notice']);
    expect(lines[1]?.msg).toMatch(/^dry run: \d+ recording\(s\) would be handled/);
    all.push(...lines);
  });

  it.each([
    ['found by the command', ['--exec', COMMAND, '--provider', 'crm', '--concurrency', '99', '--log-format', 'json'], /--concurrency/],
    ['found by commander', ['--exec', COMMAND, '--bogus', '--log-format=json'], /unknown option '--bogus'/],
    ['a value outside its choices', ['--exec', COMMAND, '--provider', 'crm', '--log-format', 'json', '--order', 'random'], /--order/],
  ])('a usage error %s is one error event, exit 2', async (_what, args, pattern) => {
    const r = await sync(args);
    expect(r.code).toBe(2);
    const lines = linesOf(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', event: 'error', exitCode: 2, error: { code: 'USAGE' } });
    expect(lines[0]?.msg).toMatch(pattern);
    all.push(...lines);
  });

  it('gives each field one JSON type across every event of every run above', () => {
    expect(all.length).toBeGreaterThan(30);
    const types = new Map<string, Set<string>>();
    for (const line of all) {
      for (const [key, value] of Object.entries(line)) {
        const seen = types.get(key) ?? new Set<string>();
        seen.add(jsonType(value));
        types.set(key, seen);
      }
    }
    const mixed = [...types].filter(([, t]) => t.size > 1).map(([key, t]) => `${key}: ${[...t].join(', ')}`);
    expect(mixed).toEqual([]);
  });
});
