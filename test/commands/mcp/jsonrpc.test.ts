// rfs mcp's stdio as a client writes to it, byte for byte: the built CLI as a child, lines
// written to its stdin and read from its stdout, no SDK between (the SDK's client never sends a
// malformed line). JSON-RPC 2.0, section 5.1: a line that is not JSON is answered -32700, JSON
// that is not a message -32600 with the request's id where it can be read and null where not; a
// batch -32600 (MCP took batches out in its 2025-06-18 revision); and the server goes on serving.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RFS_BIN } from '../../helpers/child.js';
import { until } from './support.js';

interface Reply {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: string };
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfs-mcp-jsonrpc-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `rfs mcp` as a child: what it printed, a line at a time, and how it ended. */
class Server {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  private read = 0;
  private partial = '';
  stderr = '';
  readonly exit: Promise<number | null>;

  constructor() {
    // No request reaches the service in these tests: the base URL is never dialled.
    this.child = spawn(process.execPath, [RFS_BIN, 'mcp'], {
      env: {
        PATH: process.env.PATH,
        RFS_BASE_URL: 'http://127.0.0.1:9',
        RFS_API_KEY: 'service_pk_unused',
        RFS_CONFIG_DIR: dir,
        XDG_STATE_HOME: dir,
      },
    });
    this.child.stdout.on('data', (c: Buffer) => {
      const text = this.partial + c.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString('utf8')));
    this.exit = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** The next line it printed, as it printed it. */
  async nextLine(): Promise<string> {
    await until('an answer on stdout', () => this.lines.length > this.read, 15_000);
    return this.lines[this.read++] as string;
  }

  async next(): Promise<Reply> {
    return JSON.parse(await this.nextLine()) as Reply;
  }

  /** A ping with `id`, and its answer: proof that the server still serves. */
  async ping(id: number): Promise<Reply> {
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
    return this.next();
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';

let server: Server;

beforeAll(async () => {
  server = new Server();
  server.write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
  );
  const init = await server.next();
  expect(init.id).toBe(0);
  expect(init.result?.protocolVersion).toBe('2025-11-25');
}, 30_000);

afterAll(async () => {
  server?.stop();
  await server?.exit;
});

describe('a line that is not JSON', () => {
  it.each([
    ['words', 'hello'],
    ['a message cut short', '{"jsonrpc":"2.0","id":1,"method":"pi'],
    ['a trailing comma', '{"jsonrpc":"2.0","id":1,"method":"ping",}'],
  ])('(%s) is answered with a parse error and id null, and the server goes on serving', async (_what, line) => {
    server.write(`${line}\n`);
    expect(await server.nextLine()).toBe(PARSE_ERROR);
    expect(await server.ping(100)).toEqual({ jsonrpc: '2.0', id: 100, result: {} });
  });
});

describe('JSON that is not a request', () => {
  it.each([
    ['a number', '42', null],
    ['null', 'null', null],
    ['an object with an id but no method, result or error', '{"jsonrpc":"2.0","id":7}', 7],
    ['JSON-RPC 1.0', '{"jsonrpc":"1.0","id":"abc","method":"ping"}', 'abc'],
    ['a member JSON-RPC does not have', '{"jsonrpc":"2.0","id":8,"method":"ping","extra":true}', 8],
    ['a method that is not text', '{"jsonrpc":"2.0","id":"m","method":5}', 'm'],
    ['an id that is an object', '{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}', null],
    ['an id that is null', '{"jsonrpc":"2.0","id":null,"method":"ping"}', null],
    ['an id that is a fraction', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null],
  ])('(%s) is answered Invalid Request with the id it could read, and the server goes on serving', async (_what, line, id) => {
    server.write(`${line}\n`);
    const reply = await server.next();
    expect(reply).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request', data: expect.any(String) } });
    expect(await server.ping(101)).toEqual({ jsonrpc: '2.0', id: 101, result: {} });
  });
});

describe('a batch', () => {
  it.each([
    [
      'of two pings',
      [
        { jsonrpc: '2.0', id: 9, method: 'ping' },
        { jsonrpc: '2.0', id: 10, method: 'ping' },
      ],
    ],
    ['that is empty', []],
  ])('(%s) is one Invalid Request with id null, none of its requests is run, and the server goes on serving', async (_what, batch) => {
    server.write(`${JSON.stringify(batch)}\n`);
    const reply = await server.next();
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(-32600);
    expect(reply.error?.message).toBe('Invalid Request');
    expect(reply.error?.data).toMatch(/2025-06-18/);
    // The next answer is the ping's: no answer to 9 or 10 came between.
    expect(await server.ping(102)).toEqual({ jsonrpc: '2.0', id: 102, result: {} });
  });
});

describe('lines', () => {
  it('a blank line is skipped without an answer; a line ending in CRLF is read', async () => {
    server.write('\n   \n');
    server.write(`${JSON.stringify({ jsonrpc: '2.0', id: 103, method: 'ping' })}\r\n`);
    expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 103, result: {} });
  });

  it('a message split across writes is read once whole', async () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 104, method: 'ping' });
    server.write(line.slice(0, 10));
    server.write(line.slice(10));
    server.write('\n');
    expect(await server.next()).toEqual({ jsonrpc: '2.0', id: 104, result: {} });
  });

  it('a line over 10 MiB is refused as Invalid Request and skipped, and the server goes on serving', async () => {
    server.write(`{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"${'x'.repeat(10 * 1024 * 1024)}"}}\n`);
    const reply = await server.next();
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    expect(reply.error?.data).toMatch(/longer than 10485760 bytes/);
    expect(await server.ping(105)).toEqual({ jsonrpc: '2.0', id: 105, result: {} });
    // The SDK's transport alone would have closed the connection on that line: tools are still listed.
    server.write(`${JSON.stringify({ jsonrpc: '2.0', id: 106, method: 'tools/list' })}\n`);
    const listed = await server.next();
    expect(listed.id).toBe(106);
    expect(((listed.result?.tools ?? []) as unknown[]).length).toBeGreaterThan(0);
  }, 30_000);
});

it('answers a last message that has no newline when the client closes stdin, then exits 0', async () => {
  const last = new Server();
  last.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\nnot json\n`);
  last.child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
  expect(await last.exit).toBe(0);
  const replies = last.lines.map((l) => JSON.parse(l) as Reply);
  expect(replies).toContainEqual({ jsonrpc: '2.0', id: 1, result: {} });
  expect(replies).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  expect(replies).toContainEqual({ jsonrpc: '2.0', id: 2, result: {} });
  expect(replies).toHaveLength(3);
  expect(last.stderr).toBe('');
}, 30_000);
