// GET /webhooks/deliveries?subscriptionId=bogus answered 200 where the
// document requires ^wh_, and the document had no links, so a stateful API tester had nothing
// to chain. Each link is followed here on a real sandbox, from a real answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type Harness, start } from './helpers.js';

let h: Harness;
// biome-ignore lint/suspicious/noExplicitAny: the document, read field by field
let doc: any;
beforeAll(async () => {
  h = await start({ scenario: 'incident', rateLimit: 0 });
  doc = (await h.api('/openapi.json', { key: null })).json;
});
afterAll(() => h.close());

interface Operation {
  path: string;
  method: string;
  // biome-ignore lint/suspicious/noExplicitAny: an operation object of the document
  op: any;
}
function operations(): Map<string, Operation> {
  const out = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>))
    for (const [method, op] of Object.entries(item)) out.set(op.operationId, { path, method, op });
  return out;
}

/** `$response.body#/data/0/id` on an answer. */
function resolve(expression: string, answer: Answer): string {
  const pointer = expression.replace(/^\$response\.body#/, '');
  expect(pointer).not.toBe(expression);
  let value: unknown = answer.json;
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown>)[part];
  expect(typeof value, expression).toBe('string');
  return value as string;
}

/** Follows link `name` of operation `from`'s answer: the request its target operation makes with those parameters. */
async function follow(from: string, status: string, name: string, answer: Answer, body?: unknown): Promise<Answer> {
  const source = operations().get(from) as Operation;
  const link = source.op.responses[status].links[name];
  const target = operations().get(link.operationId) as Operation;
  let path = target.path;
  const query: string[] = [];
  for (const [param, expression] of Object.entries(link.parameters as Record<string, string>)) {
    const declared = target.op.parameters.find((p: { name: string }) => p.name === param);
    expect(declared, `${link.operationId} has a parameter ${param}`).toBeDefined();
    const value = resolve(expression, answer);
    if (declared.in === 'path') path = path.replace(`{${param}}`, encodeURIComponent(value));
    else query.push(`${param}=${encodeURIComponent(value)}`);
  }
  const method = target.method.toUpperCase();
  return h.api(`${path}${query.length ? `?${query.join('&')}` : ''}`, { method, ...(body === undefined ? {} : { body }) });
}

describe('query parameters of a documented pattern', () => {
  it('answers 400 INVALID_INPUT for a subscriptionId that is not ^wh_, and an empty list for an unknown wh_ id', async () => {
    const bogus = await h.api('/webhooks/deliveries?subscriptionId=bogus');
    expect(bogus.status).toBe(400);
    expect(bogus.json.code).toBe('INVALID_INPUT');
    expect(h.logs.some((l) => l.includes('subscriptionId must look like wh_'))).toBe(true);
    const unknown = await h.api('/webhooks/deliveries?subscriptionId=wh_nobody');
    expect(unknown.status).toBe(200);
    expect(unknown.json.data).toEqual([]);
  });

  it('answers 400 for every other query parameter outside its documented values', async () => {
    for (const query of ['status=DONE', 'limit=0', 'limit=51', 'limit=x']) {
      expect((await h.api(`/webhooks/deliveries?${query}`)).status, query).toBe(400);
    }
    for (const query of ['status=DONE', 'syncState=some', 'include=all', 'limit=101', 'updatedSince=yesterday', 'cursor=forged']) {
      expect((await h.api(`/recordings?${query}`)).status, query).toBe(400);
    }
  });
});

describe('OpenAPI links', () => {
  it('name operations and parameters that exist, from fields the answer has', () => {
    const ops = operations();
    let count = 0;
    for (const { op } of ops.values()) {
      for (const [status, response] of Object.entries(
        op.responses as Record<string, { links?: Record<string, { operationId: string; parameters: Record<string, string> }> }>,
      )) {
        for (const link of Object.values(response.links ?? {})) {
          count++;
          const target = ops.get(link.operationId);
          expect(target, link.operationId).toBeDefined();
          for (const [param, expression] of Object.entries(link.parameters)) {
            expect(
              target?.op.parameters.some((p: { name: string }) => p.name === param),
              `${link.operationId}.${param}`,
            ).toBe(true);
            // The example answer of the source has the field the link reads.
            const example = response as unknown as { content: Record<string, { example: unknown }> };
            const answer = { json: Object.values(example.content)[0]?.example } as Answer;
            expect(resolve(expression, answer), `${op.operationId} ${status} ${expression}`).toMatch(/^(rec|wh|dlv)_/);
          }
        }
      }
    }
    expect(count).toBeGreaterThanOrEqual(8);
  });

  it('chain on a real sandbox: webhook → its deliveries and its delete; recording → detail → filing → detail; delivery → replay → its subscription', async () => {
    const created = await h.api('/webhooks', {
      body: { url: 'http://127.0.0.1:9/links', events: ['recording.completed'] },
      headers: { 'idempotency-key': 'links-create-1' },
    });
    expect(created.status).toBe(201);
    expect((await follow('createWebhook', '201', 'ListItsDeliveries', created)).status).toBe(200);
    expect((await follow('createWebhook', '201', 'DeleteWebhook', created)).status).toBe(204);

    const page = await h.api('/recordings');
    const detail = await follow('listRecordings', '200', 'GetRecording', page);
    expect(detail.status).toBe(200);
    const filed = await follow('getRecording', '200', 'FileRecording', detail, { provider: 'links', externalId: 'L-1' });
    expect(filed.status).toBe(200);
    expect((await follow('fileRecording', '200', 'GetRecording', filed)).json.data.syncCount).toBeGreaterThan(0);
    expect((await follow('listRecordings', '200', 'FileRecording', page, { provider: 'links', externalId: 'L-1' })).status).toBe(200);

    const webhooks = await h.api('/webhooks');
    const deliveries = await h.api('/webhooks/deliveries?status=FAILED');
    const replayed = await follow('listDeliveries', '200', 'ReplayDelivery', deliveries);
    expect(replayed.status).toBe(202);
    const ofSubscription = await follow('replayDelivery', '202', 'ListSubscriptionDeliveries', replayed);
    expect(ofSubscription.json.data.every((d: { subscriptionId: string }) => d.subscriptionId === replayed.json.data.subscriptionId)).toBe(
      true,
    );
    expect((await follow('listWebhooks', '200', 'DeleteWebhook', webhooks)).status).toBe(204);
  });
});
