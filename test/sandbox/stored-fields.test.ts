// PUT /_sandbox/state and --fixtures took subscriptions to http://10.0.0.5,
// http://169.254.169.254/… and javascript: URLs that POST /webhooks refuses, and the sandbox
// stored NUL and lone-surrogate providers, a 1 MB provider, filedAt 0000-01-01, externalUrl
// javascript: and metadata 1e999 (served back as null). One rule for a subscription's URL
// wherever it comes from, and the API's own check of a filing for every filing a state holds:
// each refused with the path of the bad field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Harness } from './helpers.js';

let h: Harness;
let recordingId: string;
// biome-ignore lint/suspicious/noExplicitAny: a state read field by field
let good: any;
beforeAll(async () => {
  h = await start({ seed: 'stored-fields', rateLimit: 0, recordings: 5 });
  recordingId = (await h.api('/recordings?limit=1')).json.data[0].id;
  expect((await h.api(`/recordings/${recordingId}/filings`, { body: { provider: 'crm', externalId: 'C-1' } })).status).toBe(200);
  expect(
    (
      await h.api('/webhooks', {
        body: { url: 'http://127.0.0.1:9/h', events: ['recording.completed'] },
        headers: { 'idempotency-key': 'stored-fields-1' },
      })
    ).status,
  ).toBe(201);
  good = (await h.control('/state')).json;
});
afterAll(() => h.close());

/** PUT /_sandbox/state with the JSON text as given (1e999 cannot be written by JSON.stringify). */
async function put(text: string): Promise<{ status: number; path: string | undefined; detail: string | undefined }> {
  const res = await fetch(`${h.base}/_sandbox/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
  const body = (await res.json().catch(() => ({}))) as { path?: string; detail?: string };
  return { status: res.status, path: body.path, detail: body.detail };
}

const BAD_URLS = ['http://10.0.0.5/hook', 'http://169.254.169.254/latest/meta-data', 'javascript:alert(1)'];

describe('a subscription URL: one rule for POST /webhooks, PUT /_sandbox/state and --fixtures', () => {
  it('refuses what POST /webhooks refuses, with the path of the URL', async () => {
    for (const [i, url] of BAD_URLS.entries()) {
      const created = await h.api('/webhooks', {
        body: { url, events: ['recording.completed'] },
        headers: { 'idempotency-key': `bad-url-${i}-x` },
      });
      expect(created.status, url).toBe(400);
      const state = structuredClone(good);
      state.subscriptions.push({ ...state.subscriptions[0], id: 'wh_second', url, createdAt: state.subscriptions[0].createdAt + 1 });
      const res = await put(JSON.stringify(state));
      expect(res.status, url).toBe(400);
      expect(res.path, url).toBe('subscriptions[1].url');
      await expect(start({ seed: 'stored-fields', fixtures: state }), url).rejects.toThrow(
        /the fixtures has a bad field at subscriptions\[1\]\.url: /,
      );
    }
    // Nothing was replaced: the one subscription is still the good one.
    expect((await h.api('/webhooks')).json.data.map((s: { url: string }) => s.url)).toEqual(['http://127.0.0.1:9/h']);
  });

  it('takes what POST /webhooks takes, and the private ones with --allow-private-webhooks', async () => {
    expect((await put(JSON.stringify(good))).status).toBe(204);
    const state = structuredClone(good);
    state.subscriptions[0].url = 'http://10.0.0.5/hook';
    const open = await start({ seed: 'stored-fields', fixtures: state, allowPrivateWebhooks: true });
    expect((await open.api('/webhooks')).json.data[0].url).toBe('http://10.0.0.5/hook');
    await open.close();
  });
});

describe("a filing in a state: the API's own check of every field", () => {
  const cases: [string, string, string, Record<string, unknown>][] = [
    // [what, field, JSON text of the value (or a marker), body for POST filings]
    ['a NUL in the provider', 'provider', JSON.stringify('cr\u0000m'), { provider: 'cr\u0000m', externalId: 'N-1' }],
    ['a lone surrogate in the provider', 'provider', '"cr\\ud800m"', { provider: 'cr\ud800m', externalId: 'N-2' }],
    ['a 1 MB provider', 'provider', JSON.stringify('p'.repeat(1_000_000)), { provider: 'p'.repeat(300_000), externalId: 'N-3' }],
    [
      'filedAt 0000-01-01',
      'filedAt',
      '"0000-01-01T00:00:00.000Z"',
      { provider: 'crm', externalId: 'N-4', filedAt: '0000-01-01T00:00:00Z' },
    ],
    [
      'externalUrl javascript:',
      'externalUrl',
      '"javascript:alert(1)"',
      { provider: 'crm', externalId: 'N-5', externalUrl: 'javascript:alert(1)' },
    ],
  ];

  for (const [what, field, text, body] of cases) {
    it(`refuses ${what}, in POST filings and in a state, with the path of the field`, async () => {
      const posted = await h.api(`/recordings/${recordingId}/filings`, { body });
      expect(posted.status).toBe(400);
      expect(posted.json.code).toBe('INVALID_INPUT');
      const state = structuredClone(good);
      state.changedRecordings[0].filings[0].data.syncMetadata[field] = '__MARK__';
      const res = await put(JSON.stringify(state).replace('"__MARK__"', text));
      expect(res.status).toBe(400);
      expect(res.path).toBe(`changedRecordings[0].filings[0].data.syncMetadata.${field}`);
    });
  }

  it('refuses metadata 1e999 (Infinity, written back as null), in POST filings, a state and --fixtures', async () => {
    const raw = `{"provider":"crm","externalId":"N-6","metadata":{"ref":{"n":1e999}}}`;
    const posted = await fetch(`${h.base}/api/v1/recordings/${recordingId}/filings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.keys.admin}` },
      body: raw,
    });
    expect(posted.status).toBe(400);
    const state = structuredClone(good);
    state.changedRecordings[0].filings[0].data.syncMetadata.metadata = '__MARK__';
    const res = await put(JSON.stringify(state).replace('"__MARK__"', '{"ref":{"n":1e999}}'));
    expect(res.status).toBe(400);
    expect(res.path).toBe('changedRecordings[0].filings[0].data.syncMetadata.metadata');
    expect(res.detail).toContain('ref.n');
    state.changedRecordings[0].filings[0].data.syncMetadata.metadata = { ref: { n: Number.POSITIVE_INFINITY } };
    await expect(start({ seed: 'stored-fields', fixtures: state })).rejects.toThrow(
      'has a bad field at changedRecordings[0].filings[0].data.syncMetadata.metadata',
    );
    // The recording still has its one good filing.
    expect((await h.api(`/recordings/${recordingId}`)).json.data.syncCount).toBe(1);
  });
});
