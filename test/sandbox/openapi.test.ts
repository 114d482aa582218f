// GET /api/v1/openapi.json (sandbox.md, "The contract as a file"): served without a key, valid
// OpenAPI 3.1 by a third-party validator, the same as the openapi.json the package ships, and
// true of the sandbox's real answers: each answer below is checked (ajv, JSON Schema 2020-12)
// against the schema the document declares for that operation, status and media type.
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_ID, checkAnswer, checkedAnswers, openApiAjv } from '../support/openapi-answers.js';
import { start, startReceiver, type Answer, type Harness, type Receiver } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field below
let doc: any;
let h: Harness;
let receiver: Receiver;
let ajv: Ajv2020;

beforeAll(async () => {
  receiver = await startReceiver('/hook', { checkDeliveries: true });
  h = await start({ seed: 'openapi', rateLimit: 0, deliveryBackoffMs: 10 });
  const res = await fetch(`${h.base}/api/v1/openapi.json`);
  doc = await res.json();
  ajv = openApiAjv(doc);
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const pointer = (...parts: string[]): string => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The document's response for an operation and status, its $ref followed. */
// biome-ignore lint/suspicious/noExplicitAny: a part of the document
function declared(method: string, path: string, status: number): { response: any; at: string } {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method.toUpperCase()} ${path} is in the document`).toBeDefined();
  let response = operation.responses[String(status)];
  expect(response, `${method.toUpperCase()} ${path} declares ${status}`).toBeDefined();
  let at = `#/${pointer('paths', path, method, 'responses', String(status))}`;
  if (response.$ref) {
    at = response.$ref;
    response = doc.components.responses[response.$ref.split('/').pop()];
  }
  return { response, at };
}

/** Checks a real answer against the document: status declared, media type, body schema. */
function conforms(method: string, path: string, answer: Answer): void {
  const { response, at } = declared(method, path, answer.status);
  if (!response.content) {
    expect(answer.text).toBe('');
    return;
  }
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0] as string;
  expect(Object.keys(response.content)).toContain(mediaType);
  const validate = ajv.compile({ $ref: `${BASE_ID}${at}/${pointer('content', mediaType, 'schema')}` });
  expect(validate(answer.json), `${method.toUpperCase()} ${path} ${answer.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  expect(answer.headers.get('x-request-id')).toBeTruthy();
}

describe('GET /api/v1/openapi.json', () => {
  it('is served without a key, and is the openapi.json the package ships (npm run openapi)', async () => {
    const res = await fetch(`${h.base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const shipped = await readFile(new URL('../../openapi.json', import.meta.url), 'utf8');
    expect(await res.text(), 'openapi.json is out of date: npm run openapi').toBe(shipped);
  });

  it('ships in the package as rfs/openapi.json', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.files).toContain('openapi.json');
    expect(pkg.exports['./openapi.json']).toBe('./openapi.json');
  });

  it('is valid OpenAPI 3.1 under @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every operation of api.md, each with its problems', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /recordings',
        'GET /recordings/{id}',
        'POST /recordings/{id}/filings',
        'POST /webhooks',
        'GET /webhooks',
        'DELETE /webhooks/{id}',
        'GET /webhooks/deliveries',
        'POST /webhooks/deliveries/{id}/replay',
        'GET /openapi.json',
      ].sort(),
    );
    for (const [path, item] of Object.entries(doc.paths)) {
      if (path === '/openapi.json') continue;
      for (const operation of Object.values(item as Record<string, { responses: Record<string, unknown> }>)) {
        for (const status of ['400', '401', '403', '429', '500']) expect(operation.responses[status], `${path} ${status}`).toBeDefined();
      }
    }
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
    expect(doc.paths['/webhooks'].post.parameters[0]).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
    expect(doc.paths['/recordings'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'status',
      'syncState',
      'updatedSince',
      'cursor',
      'include',
      'limit',
    ]);
  });
});

describe('the sandbox answers as its document says', () => {
  it('recordings: list, detail, filing', async () => {
    conforms('get', '/recordings', await h.api('/recordings?limit=3'));
    conforms('get', '/recordings', await h.api('/recordings?limit=3&include=content'));
    const page = await h.api('/recordings?limit=3&include=contentJson');
    conforms('get', '/recordings', page);
    // The check can fail: an answer the CLI would refuse is refused here too.
    expect(() => conforms('get', '/recordings', { ...page, json: { data: page.json.data, meta: { count: 'three' } } })).toThrow(/meta/);
    expect(() =>
      conforms('get', '/recordings', { ...page, json: { data: [{ ...page.json.data[0], status: 'LOST' }], meta: page.json.meta } }),
    ).toThrow(/status/);
    const id = page.json.data[0].id as string;
    conforms('get', '/recordings/{id}', await h.api(`/recordings/${id}`));
    conforms('get', '/recordings/{id}', await h.api(`/recordings/${id}?include=contentJson`));
    const filing = await h.api(`/recordings/${id}/filings`, {
      body: { provider: 'clio', externalId: 'OA-1', externalUrl: 'https://x.invalid/1', metadata: { matter: 'M-1' } },
    });
    expect(filing.status).toBe(200);
    conforms('post', '/recordings/{id}/filings', filing);
    conforms(
      'post',
      '/recordings/{id}/filings',
      await h.api(`/recordings/${id}/filings`, { body: { provider: 'clio', externalId: 'OA-1' } }),
    );
  });

  it('webhooks: create, list, deliveries, replay, delete, and the payload sent', async () => {
    const created = await h.api('/webhooks', {
      body: { url: receiver.url, events: ['recording.completed'] },
      headers: { 'idempotency-key': 'openapi-test-1' },
    });
    expect(created.status).toBe(201);
    conforms('post', '/webhooks', created);
    conforms('get', '/webhooks', await h.api('/webhooks'));

    await h.control('/recordings', { status: 'COMPLETED' });
    const [got] = await receiver.waitFor(1);
    const payload = JSON.parse(got?.body.toString('utf8') ?? 'null');
    const validate = ajv.compile({
      $ref: `${BASE_ID}#/${pointer('webhooks', 'recording.completed', 'post', 'requestBody', 'content', 'application/json', 'schema')}`,
    });
    expect(validate(payload), ajv.errorsText(validate.errors)).toBe(true);

    const deliveries = await h.api('/webhooks/deliveries');
    expect(deliveries.json.data).toHaveLength(1);
    conforms('get', '/webhooks/deliveries', deliveries);
    const replay = await h.api(`/webhooks/deliveries/${deliveries.json.data[0].id}/replay`, { method: 'POST' });
    expect(replay.status).toBe(202);
    conforms('post', '/webhooks/deliveries/{id}/replay', replay);
    const removed = await h.api(`/webhooks/${created.json.data.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    conforms('delete', '/webhooks/{id}', removed);
  });

  it('problems: 400, 401, 403, 404, 409, 415', async () => {
    const id = (await h.api('/recordings?status=DRAFT&syncState=all&limit=1')).json.data[0].id as string;
    const cases: [string, string, Answer, number][] = [
      ['get', '/recordings', await h.api('/recordings?limit=0'), 400],
      ['get', '/recordings', await h.api('/recordings', { key: null }), 401],
      ['get', '/recordings', await h.api('/recordings', { key: h.keys.writeOnly }), 403],
      ['get', '/recordings/{id}', await h.api('/recordings/rec_missing'), 404],
      ['post', '/recordings/{id}/filings', await h.api(`/recordings/${id}/filings`, { body: { provider: 'p', externalId: 'e' } }), 409],
      [
        'post',
        '/recordings/{id}/filings',
        await h.api(`/recordings/${id}/filings`, { body: 'x', headers: { 'content-type': 'text/plain' } }),
        415,
      ],
      ['post', '/webhooks', await h.api('/webhooks', { body: { url: receiver.url, events: ['recording.completed'] } }), 400],
    ];
    for (const [method, path, answer, status] of cases) {
      expect(answer.status).toBe(status);
      conforms(method, path, answer);
    }
  });
});

// the document is exactly as strict as the answers (sandbox.md).
describe('the document is as strict as the answers', () => {
  /** A real answer changed by `spoil` must be refused by the document. */
  function refused(method: string, path: string, answer: Answer, spoil: (json: Record<string, unknown>) => void, why: RegExp): void {
    const json = structuredClone(answer.json);
    spoil(json);
    expect(() => checkAnswer(method, path, answer.status, answer.headers.get('content-type'), JSON.stringify(json))).toThrow(why);
  }

  it('recordings: every field required, no unknown field, enums, date-times, bounds, ids, maxItems', async () => {
    const page = await h.api('/recordings?limit=2&include=contentJson');
    const item = (j: Record<string, unknown>) => (j.data as Record<string, unknown>[])[0] as Record<string, unknown>;
    checkAnswer('GET', '/recordings', page.status, page.headers.get('content-type'), page.text);
    refused('GET', '/recordings', page, (j) => delete item(j).audioSize, /audioSize/);
    refused('GET', '/recordings', page, (j) => (item(j).audioDuration = -1), /audioDuration/);
    refused('GET', '/recordings', page, (j) => (item(j).createdAt = 'last tuesday'), /createdAt/);
    refused('GET', '/recordings', page, (j) => (item(j).id = 'recording-1'), /id/);
    refused('GET', '/recordings', page, (j) => (item(j).surprise = true), /additional/);
    refused('GET', '/recordings', page, (j) => ((j.meta as Record<string, unknown>).limit = 101), /limit/);
    refused(
      'GET',
      '/recordings',
      page,
      (j) => (item(j).notes = Array.from({ length: 51 }, () => (item(j).notes as unknown[])[0])),
      /notes/,
    );
    const detail = await h.api(`/recordings/${item(page.json).id}`);
    refused('GET', '/recordings/rec_x', detail, (j) => delete (j.data as Record<string, unknown>).transcript, /transcript/);
    refused('GET', '/recordings/rec_x', detail, (j) => ((j.data as Record<string, unknown>).author = { id: 'u' }), /author/);
  });

  it('webhooks and deliveries: a webhook id required, a delivery whole, the replay answer a delivery', async () => {
    const list = await h.api('/webhooks');
    const created = await h.api('/webhooks', {
      body: { url: receiver.url, events: ['recording.completed'] },
      headers: { 'idempotency-key': 'openapi-strict-1' },
    });
    refused('POST', '/webhooks', created, (j) => delete (j.data as Record<string, unknown>).id, /id/);
    refused('POST', '/webhooks', created, (j) => ((j.data as Record<string, unknown>).secret = ''), /secret/);
    refused('POST', '/webhooks', created, (j) => ((j.data as Record<string, unknown>).events = ['recording.deleted']), /events/);
    // `format` is asserted (ajv-formats), not ignored with a warning: a URL that is no URI is refused.
    refused('POST', '/webhooks', created, (j) => ((j.data as Record<string, unknown>).url = 'not a url'), /must match format "uri"/);
    expect(list.status).toBe(200);
    await h.control('/recordings', { status: 'COMPLETED' });
    await receiver.waitFor(receiver.received.length + 1);
    const deliveries = await h.api('/webhooks/deliveries');
    const first = (j: Record<string, unknown>) => (j.data as Record<string, unknown>[])[0] as Record<string, unknown>;
    for (const field of ['event', 'recordingId', 'attempts', 'lastAttemptAt', 'lastResponseStatus', 'lastError', 'createdAt']) {
      refused('GET', '/webhooks/deliveries', deliveries, (j) => delete first(j)[field], new RegExp(field));
    }
    refused('GET', '/webhooks/deliveries', deliveries, (j) => (first(j).status = 'LOST'), /status/);
    const replay = await h.api(`/webhooks/deliveries/${first(deliveries.json).id}/replay`, { method: 'POST' });
    refused('POST', '/webhooks/deliveries/dlv_x/replay', replay, (j) => delete j.data, /data/);
    refused(
      'POST',
      '/webhooks/deliveries/dlv_x/replay',
      replay,
      (j) => ((j.data as Record<string, unknown>).attempts = 'many'),
      /attempts/,
    );
  });

  it('problems: each status with its own codes', async () => {
    const missing = await h.api('/recordings/rec_missing');
    expect(missing.status).toBe(404);
    refused('GET', '/recordings/rec_missing', missing, (j) => (j.code = 'INVALID_INPUT'), /code/);
    refused('GET', '/recordings/rec_missing', missing, (j) => delete j.requestId, /requestId/);
    const schema = doc.components.schemas;
    expect(schema.Problem400.properties.code.enum).toEqual(['INVALID_INPUT', 'INVALID_CURSOR', 'IDEMPOTENCY_KEY_REQUIRED']);
    expect(schema.Problem403.properties.code.enum).toEqual(['INSUFFICIENT_SCOPE', 'SUBSCRIPTION_REQUIRED', 'HOST_REFUSED']);
    expect(schema.Problem409.properties.code.enum).toEqual(['RECORDING_NOT_COMPLETED', 'WEBHOOK_SUBSCRIPTION_LIMIT_EXCEEDED']);
  });

  it('has an example for every operation, each valid against its schema', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
        expect(success, `${method} ${path}`).toBeDefined();
        const [status, response] = success as [string, { content?: Record<string, { example?: unknown }> }];
        if (status === '204') continue;
        const media = Object.keys(response.content ?? {})[0] as string;
        const example = response.content?.[media]?.example;
        expect(example, `${method} ${path} has an example`).toBeDefined();
        if (path === '/openapi.json') continue;
        const validate = ajv.compile({
          $ref: `${BASE_ID}#/${pointer('paths', path, method, 'responses', status, 'content', media, 'schema')}`,
        });
        expect(validate(example), `${method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
    for (const [name, response] of Object.entries(
      doc.components.responses as Record<string, { content: Record<string, { example: unknown }> }>,
    )) {
      const validate = ajv.compile({
        $ref: `${BASE_ID}#/${pointer('components', 'responses', name, 'content', 'application/problem+json', 'schema')}`,
      });
      expect(validate(response.content['application/problem+json']?.example), name).toBe(true);
    }
  });

  it('the answers of these tests were checked against it as they came (test/sandbox/helpers.ts)', () => {
    for (const where of [
      'GET /recordings 200',
      'GET /recordings/{id} 404',
      'POST /webhooks 201',
      'GET /webhooks/deliveries 200',
      'POST /webhooks/deliveries/{id}/replay 202',
      'webhook recording.completed',
    ]) {
      expect(checkedAnswers.get(where), where).toBeGreaterThan(0);
    }
  });
});
