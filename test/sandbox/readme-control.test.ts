// the README said "the table above" of a control API it never tabled; creating
// and completing a recording and the fault kinds were findable only in scripts/demo.mjs; and
// its only webhooks example was refused by the sandbox. Now every control route has a row, the
// walk-through runs as written on the quick start's `--seed 42` sandbox (its ids exist there),
// and the README shows a webhook URL the sandbox accepts. (That part of the README is
// docs/sandbox.md.)
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { FAULT_KINDS } from '../../src/sandbox/faults.js';
import { controlRoutes } from '../../src/sandbox/routes/control.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';
import { eventually, startReceiver, type Receiver } from './helpers.js';

const README = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
const WEBHOOKS = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
const between = (from: string, to: string): string => {
  const start = README.indexOf(from);
  expect(start, from).toBeGreaterThan(-1);
  return README.slice(start, README.indexOf(to, start + from.length));
};
const CONTROL = (): string => between('\n### The control API\n', '\n### ');

let sandbox: RunningSandbox;
let receiver: Receiver;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 42, rateLimit: 0 });
  receiver = await startReceiver('/');
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

async function rfs(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const t = bufferIO({ env: { RFS_API_KEY: sandbox.apiKeys.admin, RFS_BASE_URL: sandbox.baseUrl } });
  const code = await runCli(args, t.io, { clock: fakeTime().clock });
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

/** Words of a shell line: single quotes kept together, a trailing comment dropped. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.replace(/\s+#[^']*$/, '').matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

describe('README: the control API', () => {
  it('has a row for every route of the control API, each with its control method', () => {
    const table = CONTROL()
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    for (const route of controlRoutes) {
      const name = `${route.method} /_sandbox/${route.path}`;
      expect(
        table.some((row) => row.split('|')[1]?.includes(name)),
        name,
      ).toBe(true);
    }
    expect(README).not.toContain('(no key, the table above)');
  });

  it('names every fault kind and says what each does', () => {
    const text = CONTROL();
    for (const kind of FAULT_KINDS) expect(text).toMatch(new RegExp(`\`${kind}\` \\(`));
  });

  it('shows a webhook URL the sandbox accepts, and its walk-through runs as written on --seed 42', async () => {
    // The receiver the README points at (127.0.0.1:8787), on a free port here.
    const section = WEBHOOKS.indexOf('\n## rfs webhooks\n');
    expect(section, 'docs/webhooks.md has its "## rfs webhooks" section').toBeGreaterThanOrEqual(0);
    const create = /^rfs (webhooks create --url http:\/\/127\.0\.0\.1:8787\/[^#\n>]*?)\s*(?:>.*)?$/m.exec(
      WEBHOOKS.slice(section, WEBHOOKS.indexOf('\n## ', section + 4)),
    );
    expect(create, 'a `rfs webhooks create` line for a local receiver').not.toBeNull();
    const created = await rfs(words((create?.[1] ?? '').replace(':8787/', `:${receiver.port}/`)));
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).secret).toMatch(/^whsec_/);

    const block = /```sh\n(S=http:\/\/127\.0\.0\.1:4010\/_sandbox\n[\s\S]*?)```/.exec(CONTROL())?.[1];
    expect(block, 'the walk-through').toBeDefined();
    const lines = (block ?? '')
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((l) => l.trim() !== '');
    let curls = 0;
    for (const line of lines.slice(1)) {
      let text = line;
      if (text.includes('$(rfs deliveries list --jq .id | head -1)')) {
        const ids = await rfs(['deliveries', 'list', '--jq', '.id']);
        text = text.replace('$(rfs deliveries list --jq .id | head -1)', ids.stdout.split('\n')[0] ?? '');
      }
      const [command, ...args] = words(text.replaceAll('$S', `${sandbox.baseUrl}/_sandbox`));
      if (command === 'rfs') {
        const run = await rfs(args);
        expect(run.code, `${line}\n${run.stderr}`).toBe(0);
        if (args[0] === 'deliveries') {
          // "the delivery, SUCCEEDED": the receiver got it.
          await eventually(async () => ((await sandbox.control.stats()).deliveries.succeeded === 1 ? true : undefined));
        }
        continue;
      }
      expect(command, line).toBe('curl');
      const headers: Record<string, string> = {};
      let method = 'GET';
      let body: string | undefined;
      let url = '';
      for (let i = 0; i < args.length; i++) {
        const arg = args[i] as string;
        if (arg === '-X') method = args[++i] as string;
        else if (arg === '-H') {
          const [name, ...value] = (args[++i] as string).split(':');
          headers[(name as string).trim()] = value.join(':').trim();
        } else if (arg === '-d') body = args[++i];
        else if (arg.startsWith('http')) url = arg;
      }
      const res = await fetch(url, { method: body === undefined ? method : method === 'GET' ? 'POST' : method, headers, body });
      expect(res.status, `${line}: ${await res.text()}`).toBeLessThan(300);
      curls++;
    }
    expect(curls).toBeGreaterThanOrEqual(6);
    // The recording it files exists and was filed once, despite the lost answer.
    const filed = await fetch(`${sandbox.baseUrl}/api/v1/recordings/rec_yoWprbjQgmcGOvWk`, {
      headers: { authorization: `Bearer ${sandbox.apiKeys.admin}` },
    });
    expect(filed.status).toBe(200);
  });
});
