// the fields of a filing were checked in four places that disagreed — a
// provider and externalId of spaces were filed through `file --from`, refused as flags (exit 2)
// and by `sync`. And item 13: a filedAt of 2099 was accepted by rfs and the sandbox. One rule
// now (shared/filing.ts, checkFiling) for flags, --from lines, sync's command and the sandbox.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { start, type Harness } from '../../sandbox/helpers.js';

let h: Harness;
let dir: string;
let ids: string[];
/** The sandbox's clock and rfs's: 2026-11-22T14:05:00Z. */
const NOW = Date.parse('2026-11-22T14:05:00Z');
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-check-filing-'));
  h = await start({ rateLimit: 0, recordings: 10, now: () => NOW });
  ids = (await h.api('/recordings?limit=10')).json.data.map((r: { id: string }) => r.id);
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({
  RFS_CONFIG_DIR: join(dir, 'config'),
  RFS_API_KEY: h.keys.admin,
  RFS_BASE_URL: h.base,
  PATH: process.env.PATH,
});

async function rfs(argv: string[], stdin = '') {
  const t = bufferIO({ env: env(), stdin });
  const code = await runCli(argv, t.io, { clock: fakeTime(NOW).clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

async function syncCount(id: string): Promise<number> {
  return (await h.api(`/recordings/${id}`)).json.data.syncCount as number;
}

const BAD: { name: string; fields: Record<string, string>; flags: string[]; says: RegExp }[] = [
  {
    name: 'a provider and an externalId of spaces',
    fields: { externalId: '   ', provider: '  ' },
    flags: ['--provider', '  ', '--external-id', '   '],
    says: /(provider|external-?id)"? is (blank|empty)/i,
  },
  {
    name: 'an externalId of spaces',
    fields: { externalId: ' \t ', provider: 'crm' },
    flags: ['--provider', 'crm', '--external-id', ' \t '],
    says: /external-?id"? is (blank|empty)/i,
  },
  {
    name: 'a filedAt in 2099',
    fields: { externalId: 'X-2099', provider: 'crm', filedAt: '2099-01-01T00:00:00Z' },
    flags: ['--provider', 'crm', '--external-id', 'X-2099', '--filed-at', '2099-01-01'],
    says: /filed-?at"? is more than a day in the future/i,
  },
  {
    name: 'a filedAt 25 hours ahead',
    fields: { externalId: 'X-25H', provider: 'crm', filedAt: new Date(NOW + 25 * 3600_000).toISOString() },
    flags: ['--provider', 'crm', '--external-id', 'X-25H', '--filed-at', new Date(NOW + 25 * 3600_000).toISOString()],
    says: /filed-?at"? is more than a day in the future/i,
  },
];

describe('one check of a filing, wherever it comes from', () => {
  for (const bad of BAD) {
    it(`${bad.name}: refused as flags (exit 2), as a --from line, as sync's answer, and by the sandbox (400)`, async () => {
      const id = ids[0] as string;
      const before = await syncCount(id);

      const flags = await rfs(['file', id, ...bad.flags]);
      expect(flags.code, flags.stderr).toBe(2);
      // requireFlag's words for a flag given as spaces (blank); checkFiling's for anything else.
      expect(flags.stderr).toMatch(bad.fields.filedAt === undefined ? /(provider|external-id) is blank/ : bad.says);

      const from = await rfs(['file', '--from', '-', '-o', 'ndjson'], `${JSON.stringify({ id, ...bad.fields })}\n`);
      expect(from.code, from.stderr).toBe(8);
      const line = JSON.parse(from.stdout.trim()) as { ok: boolean; error: { code: string; title: string } };
      expect(line).toMatchObject({ ok: false, error: { code: 'INVALID_LINE' } });
      expect(line.error.title).toMatch(bad.says);

      // sync's command answers externalId, externalUrl and metadata; the time is the service's.
      if (bad.fields.filedAt === undefined) await syncRefuses(bad.fields, bad.says, bad.name);

      const sandbox = await h.api(`/recordings/${id}/filings`, { body: bad.fields });
      expect(sandbox.status).toBe(400);
      expect(sandbox.json.code).toBe('INVALID_INPUT');
      // The reason is in the sandbox's log (api.md gives no field details in the answer).
      expect(h.logs.join('\n')).toMatch(bad.says);

      expect(await syncCount(id)).toBe(before);
    });
  }

  async function syncRefuses(fields: Record<string, string>, says: RegExp, name: string): Promise<void> {
    const answer = join(dir, `answer-${name.replaceAll(' ', '-')}.json`);
    const { provider, ...record } = fields;
    writeFileSync(answer, JSON.stringify(record));
    const journal = join(dir, `journal-${name.replaceAll(' ', '-')}.jsonl`);
    const sync = await rfs([
      'sync',
      '--exec',
      `cat > /dev/null; cat "${answer}"`,
      '--provider',
      provider ?? 'crm',
      '--max-items',
      '1',
      '--journal',
      journal,
      '-o',
      'ndjson',
    ]);
    if (provider?.trim() === '') {
      // A provider of spaces is a bad flag of sync itself.
      expect(sync.code, sync.stderr).toBe(2);
    } else {
      expect(sync.code, sync.stderr).toBe(8);
      const result = JSON.parse(sync.stdout.trim()) as { id: string; ok: boolean; error: { code: string; title: string } };
      expect(result).toMatchObject({ ok: false, error: { code: 'COMMAND_OUTPUT' } });
      expect(result.error.title).toMatch(says);
      // Not journaled as an answer to file: the next pass does not send it.
      expect(readFileSync(journal, 'utf8')).not.toContain('"step":"result"');
    }
  }

  it('a filedAt up to a day ahead (a clock a little fast) is filed, from flags and from a line', async () => {
    const soon = new Date(NOW + 23 * 3600_000).toISOString();
    const flags = await rfs(['file', ids[1] as string, '--provider', 'crm', '--external-id', 'SOON-1', '--filed-at', soon, '-o', 'json']);
    expect(flags.code, flags.stderr).toBe(0);
    expect(JSON.parse(flags.stdout).syncMetadata.filedAt).toBe(soon);
    const from = await rfs(
      ['file', '--from', '-', '-o', 'ndjson'],
      `${JSON.stringify({ id: ids[2], provider: 'crm', externalId: 'SOON-2', filedAt: soon })}\n`,
    );
    expect(from.code, from.stderr).toBe(0);
  });
});
