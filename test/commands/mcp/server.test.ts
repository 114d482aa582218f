// rfs mcp (docs/agents.md) as an agent meets it: the MCP SDK's own client over stdio, the built
// CLI, `rfs sandbox --scenario incident` as a process. What the tools are (the declarations'
// names, flags and choices), what a call answers (the command's JSON with its bounds and
// notices, its exit code, the report's advice), what --allow-write opens, the budget, and that
// no answer carries a key or a webhook secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRfs, type SandboxProcess, startSandboxProcess } from '../../helpers/child.js';
import { type McpSession, answers, sandboxJson, startMcp, until } from './support.js';

const READ_ONLY = [
  'recordings_list',
  'recordings_get',
  'deliveries_list',
  'deliveries_summary',
  'deliveries_replay_dry_run',
  'webhooks_list',
  'doctor',
  'sync_status',
];
const WRITE = ['file', 'deliveries_replay', 'webhooks_create', 'webhooks_delete'];

/**
 * Each tool's command, and what the tool leaves out of the command's flags and arguments (the
 * brief of rfs mcp: replay only by ids, never --all-failed; no batch from a file or stdin).
 */
const COMMANDS: Record<string, { path: string[]; omit: string[] }> = {
  recordings_list: { path: ['recordings', 'list'], omit: [] },
  recordings_get: { path: ['recordings', 'get'], omit: [] },
  deliveries_list: { path: ['deliveries', 'list'], omit: [] },
  deliveries_summary: { path: ['deliveries', 'summary'], omit: [] },
  deliveries_replay_dry_run: { path: ['deliveries', 'replay'], omit: ['delivery-id', 'all-failed', 'dry-run', 'wait', 'wait-timeout'] },
  webhooks_list: { path: ['webhooks', 'list'], omit: [] },
  doctor: { path: ['doctor'], omit: [] },
  sync_status: { path: ['sync', 'status'], omit: ['journal'] },
  file: { path: ['file'], omit: ['from', 'fail-fast'] },
  deliveries_replay: { path: ['deliveries', 'replay'], omit: ['all-failed', 'subscription', 'dry-run', 'max', 'since', 'until', 'error'] },
  webhooks_create: { path: ['webhooks', 'create'], omit: [] },
  webhooks_delete: { path: ['webhooks', 'delete'], omit: [] },
};

let sandbox: SandboxProcess;
let readOnly: McpSession;
let writing: McpSession;

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--scenario', 'incident', '--seed', '44']);
  const env = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.admin as string };
  readOnly = await startMcp(['--budget', '120'], env);
  writing = await startMcp(['--allow-write', '--budget', '120'], env);
}, 60_000);

afterAll(async () => {
  await readOnly?.close();
  await writing?.close();
  expect(await sandbox?.stop()).toBe(0);
});

/** `rfs <path> --help` as one line of text, and the flags and arguments it lists. */
async function helpOf(path: string[]): Promise<{ text: string; description: string; flags: string[]; args: string[] }> {
  const run = await runRfs([...path, '--help'], { env: { COLUMNS: '80' } });
  expect(run.code).toBe(0);
  const options = run.stdout.split(/^Options:$/m)[1] ?? '';
  const flags = [...options.matchAll(/^ {2}(?:-\w, )?--([a-z][a-z-]*)/gm)].map((m) => m[1] as string).filter((f) => f !== 'help');
  const usage = /^Usage: rfs [a-z |-]+\[options\](.*)$/m.exec(run.stdout)?.[1] ?? '';
  const args = [...usage.matchAll(/[<[]([a-z-]+)(?:\.\.\.)?[>\]]/g)].map((m) => m[1] as string);
  const description = (/^Usage: .*\n\n([\s\S]*?)\n\n(?:Arguments|Options):/m.exec(run.stdout)?.[1] ?? '').replace(/\s+/g, ' ');
  return { text: run.stdout.replace(/\s+/g, ' '), description, flags, args };
}

describe('the tools', () => {
  it("are the declared commands: each tool's fields are its command's flags and arguments in --help, with their words and choices", async () => {
    const { tools } = await writing.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...READ_ONLY, ...WRITE]);
    for (const tool of tools) {
      const { path, omit } = COMMANDS[tool.name] as { path: string[]; omit: string[] };
      const help = await helpOf(path);
      const properties = tool.inputSchema.properties as Record<string, { description: string; enum?: string[]; type: string }>;
      const expected = [...help.args, ...help.flags].filter((name) => !omit.includes(name)).sort();
      expect(Object.keys(properties).sort(), tool.name).toEqual(expected);
      // The command's own description, as --help gives it.
      expect(help.description).not.toBe('');
      expect(tool.description).toContain(`rfs ${path.join(' ')}: ${help.description}.`);
      for (const [name, schema] of Object.entries(properties)) {
        expect(help.text, `${tool.name}.${name}`).toContain(schema.description);
        for (const choice of schema.enum ?? []) expect(help.text, `${tool.name}.${name}`).toContain(`"${choice}"`);
      }
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.annotations?.readOnlyHint).toBe(READ_ONLY.includes(tool.name));
      expect(tool.annotations?.destructiveHint).toBe(WRITE.includes(tool.name));
    }
  }, 120_000);

  it('are read-only without --allow-write: no write tool is listed, and a call to one fails', async () => {
    const { tools } = await readOnly.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(READ_ONLY);
    for (const name of WRITE) {
      await expect(readOnly.client.callTool({ name, arguments: {} })).rejects.toThrow(/--allow-write/);
    }
  });
});

describe('a call', () => {
  it("answers deliveries summary with the command's JSON and every bound in it, as rfs deliveries summary -o json gives them", async () => {
    const answer = await readOnly.call('deliveries_summary');
    expect(answer.isError).toBe(false);
    // exit 8: some deliveries are FAILED (cli.md); an answer, not an error.
    expect(answer.fields.exitCode).toBe(8);
    const groups = answer.fields.result as Record<string, unknown>[];
    const direct = await runRfs(['deliveries', 'summary', '-o', 'json'], {
      env: { RFS_BASE_URL: sandbox.baseUrl, RFS_API_KEY: sandbox.apiKeys.admin, RFS_CONFIG_DIR: '/nonexistent' },
    });
    expect(direct.code).toBe(8);
    const cli = JSON.parse(direct.stdout) as Record<string, unknown>[];
    expect(groups.length).toBeGreaterThan(0);
    // The same fields as the command's own JSON, bounds included. (The incident goes on while
    // the two run: its newest deliveries are still retrying, so the groups may differ by one.)
    const fields = (rows: Record<string, unknown>[]) => [...new Set(rows.map((g) => Object.keys(g).sort().join(',')))];
    expect(fields(groups)).toEqual(fields(cli));
    for (const g of groups) {
      expect(typeof g.countIsLowerBound).toBe('boolean');
      expect(typeof g.oldestIsLowerBound).toBe('boolean');
      expect(typeof g.complete).toBe('boolean');
    }
    // The incident's FAILED lists come back full: those counts are only lower bounds, as the command says.
    const bounded = (rows: Record<string, unknown>[]) =>
      rows
        .filter((g) => g.status === 'FAILED' && g.countIsLowerBound === true && g.complete === false)
        .map((g) => `${g.subscriptionId} ${g.lastError}`);
    expect(bounded(groups).length).toBeGreaterThan(0);
    expect(bounded(groups).sort()).toEqual(bounded(cli).sort());
  }, 60_000);

  it('answers what a filter may hide as a notice field', async () => {
    const answer = await readOnly.call('deliveries_summary', { since: '3h' });
    expect(answer.fields.notices?.some((n) => /may be incomplete: .*may not be shown/.test(n))).toBe(true);
    expect(answer.fields.argv).toEqual(['rfs', 'deliveries', 'summary', '--since=3h', '-o', 'json']);
  });

  it("answers a failed command with its exit code, the report's error and its line of advice", async () => {
    const missing = await readOnly.call('recordings_get', { id: 'rec_0000000000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.fields.exitCode).toBe(4);
    expect(missing.fields.error?.message).toMatch(/^error: .*RESOURCE_NOT_FOUND, HTTP 404/);
    expect(missing.fields.error?.advice).toBe("check the id: only the key's own workspace is searched");
    const badChoice = await readOnly.call('recordings_list', { status: 'SOMEDAY' });
    expect(badChoice.isError).toBe(true);
    expect(badChoice.fields.exitCode).toBe(2);
    expect(badChoice.fields.error?.message).toMatch(/Allowed choices are/);
    const unknownField = await readOnly.call('doctor', { verbose: true });
    expect(unknownField.fields.exitCode).toBe(2);
    expect(unknownField.fields.error?.message).toBe('error: doctor has no field verbose');
  });
});

describe('with --allow-write', () => {
  it('refuses to replay an id no dry run of the session listed', async () => {
    const failed = await writing.call('deliveries_list', { status: 'FAILED', limit: '1' });
    const id = (failed.fields.result as { id: string }[])[0]?.id as string;
    const refused = await writing.call('deliveries_replay', { 'delivery-id': [id] });
    expect(refused.isError).toBe(true);
    expect(refused.fields.exitCode).toBe(2);
    expect(refused.fields.error?.advice).toMatch(/deliveries_replay_dry_run first/);
  });

  it('replays the ids a dry run listed, and the sandbox shows them sent again', async () => {
    // The failing receiver recovers, so that the replays succeed.
    await sandboxJson(sandbox.baseUrl, '/_sandbox/receivers/failing', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'ok' }),
    });
    const dry = await writing.call('deliveries_replay_dry_run', { max: '2' });
    expect(dry.isError).toBe(false);
    expect(dry.fields.notices?.some((n) => /would be replayed \(dry run: nothing sent\)/.test(n))).toBe(true);
    const ids = (dry.fields.result as { id: string; status: string }[]).map((d) => d.id);
    expect(ids).toHaveLength(2);
    const before = await deliveries(ids);
    expect(before.map((d) => d.status)).toEqual(['FAILED', 'FAILED']);

    const replay = await writing.call('deliveries_replay', { 'delivery-id': ids });
    expect(replay.isError).toBe(false);
    expect(replay.fields.exitCode).toBe(0);
    expect(replay.fields.argv).toEqual(['rfs', 'deliveries', 'replay', '--yes', '-o', 'json', '--', ...ids]);
    await until('the replayed deliveries to succeed', async () => (await deliveries(ids)).every((d) => d.status === 'SUCCEEDED'));
    const after = await deliveries(ids);
    for (const [i, d] of after.entries()) expect(d.log.length).toBeGreaterThan(before[i]?.log.length ?? 0);
  }, 60_000);

  it('creates a subscription without giving its secret to the agent', async () => {
    const created = await writing.call('webhooks_create', { url: 'http://127.0.0.1:9/agent', event: ['recording.completed'] });
    expect(created.isError).toBe(false);
    expect(created.text).toContain('[webhook secret removed]');
    expect(created.text).not.toMatch(/whsec_/);
    // The command's "shown only this once: store it now" would be false here: the answer says the
    // secret was withheld, and how to get a subscription whose deliveries can be verified.
    expect(created.fields.notices).toEqual([expect.stringMatching(/^The secret of the new subscription is withheld/)]);
    expect(created.text).not.toContain('store it now');
  });
});

interface StateDelivery {
  id: string;
  status: string;
  log: unknown[];
}

async function deliveries(ids: string[]): Promise<StateDelivery[]> {
  const state = (await sandboxJson(sandbox.baseUrl, '/_sandbox/state')) as { deliveries: StateDelivery[] };
  return ids.map((id) => state.deliveries.find((d) => d.id === id) as StateDelivery);
}

describe('the budget', () => {
  it('keeps 100 rapid calls within --budget: the sandbox logs no more requests from its key than the budget', async () => {
    const budget = 5;
    // Its own key (webhooks), so that the sandbox's log tells its requests apart.
    const mcp = await startMcp(['--budget', String(budget)], { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.webhooks as string });
    try {
      const { meta } = (await sandboxJson(sandbox.baseUrl, '/_sandbox/requests')) as { meta: { lastSeq: number } };
      const calls = await Promise.all(Array.from({ length: 100 }, () => mcp.call('webhooks_list')));
      const served = calls.filter((c) => !c.isError);
      const refused = calls.filter((c) => c.isError);
      expect(served).toHaveLength(budget);
      expect(refused).toHaveLength(100 - budget);
      for (const r of refused) {
        expect(r.fields.exitCode).toBe(6);
        expect(r.fields.error?.message).toBe(`error: rfs mcp's budget of ${budget} requests a minute is spent`);
        expect(r.fields.error?.retryAfterSeconds).toBeGreaterThan(0);
        expect(r.fields.error?.retryAfterSeconds).toBeLessThanOrEqual(61);
        expect(r.fields.error?.advice).toMatch(/^try again in \d+ s/);
      }
      const { data } = (await sandboxJson(sandbox.baseUrl, `/_sandbox/requests?since=${meta.lastSeq}`)) as {
        data: { key: string | null; path: string }[];
      };
      const sent = data.filter((r) => r.key === 'webhooks');
      expect(sent).toHaveLength(budget);
      expect(sent.every((r) => r.path === '/api/v1/webhooks')).toBe(true);
    } finally {
      await mcp.close();
    }
  }, 120_000);
});

describe('every answer', () => {
  it('holds no API key and no webhook secret', () => {
    expect(answers.length).toBeGreaterThan(100);
    for (const text of answers) {
      expect(text).not.toMatch(/service_pk_/);
      expect(text).not.toMatch(/whsec_/);
    }
  });
});
