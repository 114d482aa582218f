// three nesting limits disagreed — the sandbox stored metadata of 254–255
// levels, whose filing answer (three levels deeper) rfs then refused to read (exit 7), and `sync
// --watch` sent it again on every pass. One limit now (shared/json-depth.ts): for any depth
// around it, a filing from `rfs file --metadata` or from `rfs sync`'s command is either refused
// before it is sent, or filed and read back (and, for sync, journaled as filed). Never exit 7.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { MAX_METADATA_DEPTH, nestedDeeperThan } from '../../src/shared/json-depth.js';
import { bufferIO } from '../helpers/io.js';
import { start, type Harness } from '../sandbox/helpers.js';

/** JSON text of an object `levels` levels deep, built as text. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

let h: Harness;
let dir: string;
let n = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-depth-prop-'));
  h = await start({ rateLimit: 0, recordings: 40 });
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

async function syncCount(id: string): Promise<number> {
  return (await h.api(`/recordings/${id}`)).json.data.syncCount as number;
}

const depth = fc.integer({ min: 250, max: 260 });

describe('metadata nested 250 to 260 levels deep', () => {
  it('rfs file --metadata: refused with exit 2 before it is sent, or filed and read back', async () => {
    const id = (await h.api('/recordings?limit=1')).json.data[0].id as string;
    await fc.assert(
      fc.asyncProperty(depth, fc.boolean(), async (levels, fromFile) => {
        n += 1;
        const text = nested(levels);
        const file = join(dir, `meta-${n}.json`);
        if (fromFile) writeFileSync(file, text);
        const before = await syncCount(id);
        const t = bufferIO({ env: env() });
        const argv = ['file', id, '--provider', 'crm', '--external-id', `D-${n}`, '--metadata', fromFile ? `@${file}` : text, '-o', 'json'];
        const code = await runCli(argv, t.io);
        if (levels > MAX_METADATA_DEPTH) {
          expect(code, t.stderr()).toBe(2);
          expect(t.stderr()).toContain(`--metadata is nested more than ${MAX_METADATA_DEPTH} levels deep`);
          expect(t.stdout()).toBe('');
          expect(await syncCount(id)).toBe(before);
        } else {
          expect(code, t.stderr()).toBe(0);
          const answer = JSON.parse(t.stdout()) as { syncMetadata: { metadata: unknown } };
          expect(nestedDeeperThan(answer.syncMetadata.metadata, levels - 1)).toBe(true);
          expect(nestedDeeperThan(answer.syncMetadata.metadata, levels)).toBe(false);
          expect(await syncCount(id)).toBe(before + 1);
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);

  it("rfs sync: the command's answer is refused before it is sent and journaled as failed, or filed, read back and journaled", async () => {
    await fc.assert(
      fc.asyncProperty(depth, async (levels) => {
        n += 1;
        const answer = join(dir, `answer-${n}.json`);
        writeFileSync(answer, `{"externalId":"S-${n}","metadata":${nested(levels)}}`);
        const journal = join(dir, `journal-${n}.jsonl`);
        const t = bufferIO({ env: { ...env(), ANSWER: answer } });
        const argv = [
          'sync',
          '--exec',
          'cat > /dev/null; cat "$ANSWER"',
          '--exec-env',
          'ANSWER',
          '--provider',
          'crm',
          '--max-items',
          '1',
          '--max-attempts',
          '1',
        ];
        const code = await runCli([...argv, '--journal', journal, '-o', 'ndjson'], t.io);
        const [result] = t
          .stdout()
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as { id: string; ok: boolean; error?: { code: string } });
        const steps = readFileSync(journal, 'utf8')
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as { step: string; id: string; parked?: boolean });
        const of = (step: string) => steps.filter((s) => s.step === step && s.id === result?.id);
        expect(result, t.stderr()).toBeDefined();
        if (levels > MAX_METADATA_DEPTH) {
          expect(code, t.stderr()).toBe(8);
          expect(result).toMatchObject({ ok: false, error: { code: 'COMMAND_OUTPUT' } });
          // Never journaled as an answer to file (it would be sent on every pass): failed, and
          // with --max-attempts 1 parked, so --watch does not run it again.
          expect(of('result')).toEqual([]);
          expect(of('failed')).toEqual([expect.objectContaining({ parked: true })]);
          expect(await syncCount(result?.id ?? '')).toBe(0);
        } else {
          expect(code, t.stderr()).toBe(0);
          expect(result).toMatchObject({ ok: true });
          expect(of('filed')).toHaveLength(1);
          expect(await syncCount(result?.id ?? '')).toBe(1);
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
