// Redaction of results (item 1; cli.md: the key is never printed in full anywhere). A
// server that answers 200 and echoes the caller's key — in headers, ids, titles, names,
// transcripts, syncMetadata — and a webhook secret the run knows: every command's stdout, in
// every format (a table on terminals of several widths, a table off a terminal, json, ndjson,
// --jq), keeps what the server said but never the key or the secret whole, and its JSON stays
// JSON. Errors' stdout (`rfs api` prints an error's body) is covered too.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { page, recording } from '../helpers/fixtures.js';
import { bufferIO } from '../helpers/io.js';
import { scenarioCli } from '../helpers/scenario-cli.js';
import type { ScriptedResponse } from '../helpers/scenario-server.js';

/** Every secret part carries "Leak": any "Leak" on stdout is a leak. */
const KEYS = {
  'a key with / + =': 'service_pk_LeakAAAA1111/LeakBBBB2222+LeakCCCC3333=wxyz',
  'a key of the usual shape': 'service_pk_LeakPlainEEEE5555LeakFFFF6666wxyz',
} as const;
const WHSEC = 'whsec_LeakWhsecDDDD4444LeakGGGG7777';
const LEAK = /Leak/;

/** The forms in which a server can hand the key back inside JSON text. */
const forms = (key: string) => ({ raw: key, encoded: encodeURIComponent(key), slashed: key.replaceAll('/', '\\/') });

function echoHeaders(key: string): Record<string, string> {
  return { 'x-request-id': `Bearer ${key}`, 'x-echo': `${encodeURIComponent(key)} ${WHSEC}`, 'content-type': 'application/json' };
}

function echoRecording(key: string, n: number): Record<string, unknown> {
  return recording(n, {
    id: `rec_${n}_${key}`,
    title: `Call about Bearer ${key} and ${WHSEC}`,
    author: { id: 'usr_1', name: key, email: `${encodeURIComponent(key)}@example.com` },
    client: { id: 'cli_1', name: `Client ${key}`, referenceNumber: WHSEC },
    matter: { id: 'mat_1', name: key, referenceNumber: `ref ${key}` },
    syncCount: 1,
    lastSyncedAt: '2026-11-21T11:00:00.000Z',
    syncMetadata: syncMetadata(key),
  });
}

function syncMetadata(key: string): Record<string, unknown> {
  return {
    provider: `crm ${key}`,
    externalId: key,
    externalUrl: `https://crm.example/${encodeURIComponent(key)}`,
    filedAt: '2026-11-21T11:00:00.000Z',
    metadata: { [key]: key, nested: { secret: WHSEC, echoed: forms(key) } },
  };
}

interface Case {
  argv: string[];
  answers: (key: string) => ScriptedResponse[];
  stdin?: string;
  /** `api` prints one value whatever -o says: no table of its own. */
  jsonOnly?: boolean;
  /** A batch's result lines show the input's ids, not the server's text. */
  showsNoServerText?: boolean;
}

const CASES: Case[] = [
  {
    argv: ['recordings', 'list'],
    answers: (key) => [{ headers: echoHeaders(key), body: page([echoRecording(key, 1), echoRecording(key, 2)], null) }],
  },
  {
    argv: ['recordings', 'list', '--all', '--include', 'content'],
    answers: (key) => [
      { headers: echoHeaders(key), body: page([echoRecording(key, 1)], `cur_${key}`) },
      { headers: echoHeaders(key), body: page([echoRecording(key, 2)], null) },
    ],
  },
  {
    argv: ['recordings', 'get', 'rec_1'],
    answers: (key) => [
      {
        headers: echoHeaders(key),
        body: {
          data: {
            ...echoRecording(key, 1),
            transcript: `Speaker 1: the key is ${key}, the secret ${WHSEC}.`,
            notes: [
              {
                id: `blk_${key}`,
                templateName: `Template ${key}`,
                templateId: 'tpl_1',
                schemaVersion: 1,
                contentRevision: 1,
                sortOrder: 1,
                createdAt: '2026-11-20T09:00:00Z',
                contentText: `Note: ${key}`,
                contentStatus: 'available',
              },
            ],
          },
        },
      },
    ],
  },
  {
    argv: ['file', 'rec_1', '--provider', 'crm', '--external-id', 'CASE-1'],
    answers: (key) => [
      {
        headers: echoHeaders(key),
        body: {
          data: { id: `rec_${key}`, lastSyncedAt: '2026-11-21T11:00:00.000Z', syncCount: 2, syncMetadata: syncMetadata(key) },
          meta: { replayed: true },
        },
      },
    ],
  },
  {
    argv: ['file', '--from', '-', '--provider', 'crm'],
    stdin: '{"id":"rec_1","externalId":"A"}\n',
    showsNoServerText: true,
    answers: (key) => [
      {
        headers: echoHeaders(key),
        body: {
          data: { id: `rec_${key}`, lastSyncedAt: '2026-11-21T11:00:00.000Z', syncCount: 2, syncMetadata: syncMetadata(key) },
          meta: { replayed: false },
        },
      },
    ],
  },
  {
    argv: ['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook'],
    answers: (key) => [
      {
        status: 201,
        headers: echoHeaders(key),
        body: {
          data: {
            id: `wh_${key}`,
            url: `http://127.0.0.1:9/${key}`,
            events: ['recording.completed'],
            secret: 'whsec_TheNewSecret0000',
            createdAt: '2026-11-21T11:00:00.000Z',
            echo: WHSEC,
          },
        },
      },
    ],
  },
  {
    argv: ['webhooks', 'list'],
    answers: (key) => [
      {
        headers: echoHeaders(key),
        body: {
          data: [
            { id: `wh_${key}`, url: `https://hooks.example/${encodeURIComponent(key)}`, events: ['recording.completed'], secret: WHSEC },
          ],
          meta: { hasMore: false, nextCursor: null },
        },
      },
    ],
  },
  {
    argv: ['deliveries', 'list'],
    answers: (key) => [
      {
        headers: echoHeaders(key),
        body: {
          data: [
            {
              id: `dlv_${key}`,
              status: 'FAILED',
              subscriptionId: `wh_${key}`,
              recordingId: key,
              lastError: `401 from receiver: Bearer ${key} ${WHSEC}`,
            },
          ],
          meta: { hasMore: false, nextCursor: null },
        },
      },
    ],
  },
  {
    argv: ['api', '/recordings', '-i', '-v'],
    jsonOnly: true,
    answers: (key) => [{ headers: echoHeaders(key), body: page([echoRecording(key, 1)], null) }],
  },
  {
    argv: ['api', '/recordings', '--paginate'],
    jsonOnly: true,
    answers: (key) => [
      { headers: echoHeaders(key), body: page([echoRecording(key, 1)], 'c2') },
      { headers: echoHeaders(key), body: page([echoRecording(key, 2)], null) },
    ],
  },
  {
    // An error's body is printed on stdout too.
    argv: ['api', '/recordings/rec_1', '-i'],
    jsonOnly: true,
    answers: (key) => [
      {
        status: 404,
        headers: { ...echoHeaders(key), 'content-type': 'application/problem+json' },
        body: {
          type: 'about:blank',
          title: `no recording for Bearer ${key}`,
          status: 404,
          code: 'RESOURCE_NOT_FOUND',
          requestId: `req_${key}`,
        },
      },
    ],
  },
];

interface Mode {
  name: string;
  args: string[];
  stdoutIsTTY?: boolean;
  columns?: number;
  /** What stdout must be: JSON to parse, ndjson lines, or text. */
  parse?: 'json' | 'ndjson';
}

const MODES: Mode[] = [
  { name: 'a table on a terminal of 60 columns', args: [], stdoutIsTTY: true, columns: 60 },
  { name: 'a table on a terminal of 80 columns', args: [], stdoutIsTTY: true, columns: 80 },
  { name: 'a table on a terminal of 250 columns', args: [], stdoutIsTTY: true, columns: 250 },
  { name: 'a table off a terminal', args: ['-o', 'table'] },
  { name: 'json', args: ['-o', 'json'], parse: 'json' },
  { name: 'ndjson', args: ['-o', 'ndjson'], parse: 'ndjson' },
  { name: '--jq', args: ['--jq', '.'] },
];

const scenario = scenarioCli({ name: 'redact-stdout', key: 'unused', env: { NO_COLOR: '1', TZ: 'UTC', RFS_WEBHOOK_SECRET: WHSEC } });

function expectNoLeak(what: string, text: string): void {
  const at = text.search(LEAK);
  if (at >= 0)
    throw new Error(`${what}: a secret on stdout: …${text.slice(Math.max(0, at - 80), at + 60)}…\n--- whole stdout ---\n${text}`);
}

describe('stdout of every command, against a server that echoes the key and a known webhook secret', () => {
  for (const c of CASES) {
    for (const [keyName, key] of Object.entries(KEYS)) {
      it(`rfs ${c.argv.join(' ')}, ${keyName}`, async () => {
        for (const mode of c.jsonOnly ? MODES.filter((m) => !m.args.includes('-o') || m.parse === 'ndjson') : MODES) {
          if (c.argv.includes('-i') && mode.args.includes('--jq')) continue;
          scenario.server.queue(...c.answers(key));
          const argv = [...c.argv, ...mode.args];
          const { t, run } = scenario.cli(argv, {
            env: { RFS_API_KEY: key },
            stdoutIsTTY: mode.stdoutIsTTY ?? false,
            columns: mode.columns ?? 80,
            ...(c.stdin === undefined ? {} : { stdin: c.stdin }),
          });
          const code = await run();
          const what = `${mode.name}: rfs ${argv.join(' ')} (exit ${code})`;
          expect(code, `${what}\n${t.stderr()}`).toBe(c.argv.includes('/recordings/rec_1') ? 4 : 0);
          const out = t.stdout();
          expectNoLeak(what, out);
          expectNoLeak(`${what} (stderr)`, t.stderr());
          // Shown redacted, not dropped: the key's last 4 characters say which key it was.
          if (!c.showsNoServerText) expect(out, what).toContain('service_pk_…wxyz');
          if (c.argv.includes('-i')) continue;
          if (mode.parse === 'json') expect(() => JSON.parse(out), what).not.toThrow();
          if (mode.parse === 'ndjson')
            for (const line of out.trimEnd().split('\n')) expect(() => JSON.parse(line), `${what}: ${line}`).not.toThrow();
        }
      });
    }
  }

  it('api -i shows the echoed header redacted, and the body stays the JSON the server sent, redacted', async () => {
    const key = KEYS['a key with / + ='];
    scenario.server.queue({ headers: echoHeaders(key), body: { data: { title: `Bearer ${key}`, kept: 'as is', n: 1.5 } } });
    const { t, run } = scenario.cli(['api', '/echo', '-i'], { env: { RFS_API_KEY: key } });
    expect(await run()).toBe(0);
    const [head, body] = t.stdout().split('\n\n');
    expect(head).toContain('x-request-id: Bearer service_pk_…wxyz');
    expect(head).toContain('x-echo: service_pk_…wxyz whsec_…');
    expect(JSON.parse(body ?? '')).toEqual({ data: { title: 'Bearer service_pk_…wxyz', kept: 'as is', n: 1.5 } });
  });

  it('webhooks create still prints the new subscription secret once: it is not one rfs knew', async () => {
    const key = KEYS['a key of the usual shape'];
    scenario.server.queue({
      status: 201,
      body: {
        data: {
          id: 'wh_1',
          url: 'http://127.0.0.1:9/hook',
          events: ['recording.completed'],
          secret: 'whsec_TheNewSecret0000',
          createdAt: '2026-11-21T11:00:00.000Z',
        },
      },
    });
    const { t, run } = scenario.cli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '-o', 'json'], {
      env: { RFS_API_KEY: key },
    });
    expect(await run()).toBe(0);
    expect(JSON.parse(t.stdout())).toMatchObject({ secret: 'whsec_TheNewSecret0000' });
  });
});

describe('a webhook secret rfs read, echoed in a delivery', () => {
  /** Not shaped like a service secret: only knowing it exactly removes it. */
  const SECRET = 'LeakSecret-shared-HHHH8888-LeakIIII9999';

  async function listenAndPost(o: { stdoutIsTTY: boolean; args: string[] }): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'rfs-redact-listen-'));
    try {
      const file = join(dir, 'secret');
      writeFileSync(file, `${SECRET}\n`);
      // A terminal row cuts the title inside the secret.
      const t = bufferIO({ env: {}, stdoutIsTTY: o.stdoutIsTTY, columns: 70 });
      const controller = new AbortController();
      const done = runCli(['webhooks', 'listen', '--port', '0', '--secret-file', file, '--no-color', ...o.args], t.io, {
        signal: controller.signal,
      });
      let port: number | undefined;
      const deadline = Date.now() + 10_000;
      while (port === undefined && Date.now() < deadline) {
        const match = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(t.stderr());
        if (match) port = Number(match[1]);
        else await new Promise((r) => setTimeout(r, 10));
      }
      expect(port, t.stderr()).toBeDefined();
      const body = JSON.stringify({ id: 'dlv_1', event: 'recording.completed', data: { id: 'rec_1', title: `${SECRET} is the secret` } });
      const ts = Math.floor(Date.now() / 1000);
      const signature = `sha256=${createHmac('sha256', SECRET).update(`${ts}.`).update(body).digest('hex')}`;
      const reply = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        body,
        headers: { 'x-service-timestamp': String(ts), 'x-service-signature': signature, 'x-service-delivery': 'dlv_1' },
      });
      expect(reply.status).toBe(200);
      const until = Date.now() + 10_000;
      // The row, found by its delivery id (at 70 columns RECORDING goes, STATUS stays).
      while (!t.stdout().includes('dlv_1') && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      controller.abort();
      expect(await done).toBe(0);
      return t.stdout();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('webhooks listen --secret-file: the row on a terminal and the ndjson line hold no piece of it', async () => {
    for (const mode of [
      { stdoutIsTTY: true, args: [] },
      { stdoutIsTTY: false, args: ['-o', 'ndjson'] },
    ]) {
      const out = await listenAndPost(mode);
      expect(out).toMatch(/valid +200 +dlv_1|"deliveryId":"dlv_1"/);
      expectNoLeak(`webhooks listen, ${mode.stdoutIsTTY ? 'terminal' : 'ndjson'}`, out);
    }
  });
});

describe('text that only looks like the start of the key', () => {
  const scenario = scenarioCli({ name: 'lookalike', key: 'service_pk_sEcretKey0123456789abcdef3grU', env: { NO_COLOR: '1' } });

  it.each(['json', 'ndjson', 'table'])('a title "see service_pk_sandbox_docs" comes out unchanged with -o %s', async (format) => {
    scenario.server.queue({ body: page([recording(1, { title: 'see service_pk_sandbox_docs' })], null) });
    const { t, run } = scenario.cli(['recordings', 'list', '-o', format]);
    expect(await run()).toBe(0);
    expect(t.stdout()).toContain('see service_pk_sandbox_docs');
    expect(t.stdout()).not.toContain('3grU');
  });
});
