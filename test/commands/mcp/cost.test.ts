// What a call of rfs mcp costs of its budget (docs/agents.md, "The budget"), counted in the
// sandbox's request log (sandbox.md, "Request log"): the two tools that send more than one
// request ask each list once a call, say so in their description, and answer how many requests
// they sent. At the default budget, 12 a minute, every request counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxProcess, startSandboxProcess } from '../../helpers/child.js';
import { type Answer, type McpSession, sandboxJson, startMcp } from './support.js';

interface Logged {
  seq: number;
  method: string;
  path: string;
  query: string;
  key: string | null;
}

let sandbox: SandboxProcess;
let mcp: McpSession;

beforeAll(async () => {
  // The incident: a FAILED list that comes back full, two subscriptions behind it.
  sandbox = await startSandboxProcess(['--scenario', 'incident', '--seed', '45']);
  // The default budget (no --budget); a key of its own, so that the log tells its requests apart.
  mcp = await startMcp([], { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.webhooks as string });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  expect(await sandbox?.stop()).toBe(0);
});

/** A tool's answer, and the requests the sandbox logged from the sessions' key while it ran. */
async function sentBy(
  tool: string,
  args: Record<string, unknown> = {},
  session: McpSession = mcp,
): Promise<{ answer: Answer; sent: Logged[] }> {
  const { meta } = (await sandboxJson(sandbox.baseUrl, '/_sandbox/requests')) as { meta: { lastSeq: number } };
  const answer = await session.call(tool, args);
  const { data } = (await sandboxJson(sandbox.baseUrl, `/_sandbox/requests?since=${meta.lastSeq}`)) as { data: Logged[] };
  return { answer, sent: data.filter((r) => r.key === 'webhooks') };
}

const lists = (sent: Logged[]): string[] => sent.map((r) => `${r.method} ${r.path}?${r.query}`);

describe('deliveries_summary', () => {
  it('asks each list once, and answers how many requests it sent', async () => {
    const { answer, sent } = await sentBy('deliveries_summary');
    expect(answer.isError).toBe(false);
    expect(answer.fields.exitCode).toBe(8);
    expect(new Set(lists(sent)).size).toBe(sent.length);
    expect(lists(sent).filter((l) => l.startsWith('GET /api/v1/webhooks?'))).toHaveLength(1);
    // The FAILED list came back full: it was asked again per subscription, each once.
    expect(sent.filter((r) => r.path === '/api/v1/webhooks/deliveries' && /subscriptionId=/.test(r.query)).length).toBeGreaterThan(0);
    expect(answer.fields.requests).toBe(sent.length);
  });
});

describe('deliveries_replay_dry_run', () => {
  it('lists GET /webhooks once when a filter lists the FAILED deliveries per subscription, and answers how many requests it sent', async () => {
    const { answer, sent } = await sentBy('deliveries_replay_dry_run', { since: '3h' });
    expect(answer.isError).toBe(false);
    expect(answer.fields.exitCode).toBe(0);
    expect(lists(sent).filter((l) => l.startsWith('GET /api/v1/webhooks?'))).toHaveLength(1);
    expect(sent.filter((r) => /subscriptionId=/.test(r.query)).length).toBeGreaterThan(0);
    expect(new Set(lists(sent)).size).toBe(sent.length);
    expect(answer.fields.requests).toBe(sent.length);
  });

  // The incident's FAILED list comes back full of the deleted subscription's rows: the dry run
  // lists it again per live subscription (cli.md, "Evidence, not inference"), each once.
  it('without a filter lists the FAILED list, GET /webhooks once, then each live subscription once, and says how many', async () => {
    // A session of its own: the calls above took most of the other's budget of 12.
    const other = await startMcp([], { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.webhooks as string });
    try {
      const { answer, sent } = await sentBy('deliveries_replay_dry_run', {}, other);
      expect(answer.isError).toBe(false);
      const asked = lists(sent);
      expect(asked[0]?.split('?')[0]).toBe('GET /api/v1/webhooks/deliveries');
      expect(asked.filter((l) => l.startsWith('GET /api/v1/webhooks?'))).toHaveLength(1);
      expect(sent.filter((r) => /subscriptionId=/.test(r.query)).length).toBeGreaterThan(0);
      expect(new Set(asked).size).toBe(sent.length);
      expect(answer.fields.requests).toBe(sent.length);
    } finally {
      await other.close();
    }
  });
});

describe('every answer', () => {
  it('says how many requests its call sent: one for a list, none for a tool that sends nothing or a call refused before sending', async () => {
    // A session of its own: the calls above took most of the other's budget of 12.
    const other = await startMcp([], { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKeys.webhooks as string });
    try {
      const list = await sentBy('webhooks_list', {}, other);
      expect(list.sent).toHaveLength(1);
      expect(list.answer.fields.requests).toBe(1);
      const local = await sentBy('sync_status', {}, other);
      expect(local.sent).toHaveLength(0);
      expect(local.answer.fields.requests).toBe(0);
      const refused = await sentBy('doctor', { verbose: true }, other);
      expect(refused.answer.fields.exitCode).toBe(2);
      expect(refused.answer.fields.requests).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('the descriptions', () => {
  it('of the two tools that send several requests say what they cost and that the answer counts them', async () => {
    const { tools } = await mcp.client.listTools();
    for (const name of ['deliveries_summary', 'deliveries_replay_dry_run']) {
      const description = tools.find((t) => t.name === name)?.description ?? '';
      expect(description, name).toMatch(/Costs \d+ (or \d+ )?requests/);
      expect(description, name).toMatch(/No list is asked twice in a call; the answer's "requests" says how many were sent\./);
    }
  });
});
