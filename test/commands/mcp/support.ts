// rfs mcp as an agent meets it: the built CLI (bin/rfs.js → dist/) started by the MCP SDK's own
// client over its stdio transport, against a sandbox process. Every answer a test reads goes
// through `answers`, so that a file can check that none of them holds a key or a secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RFS_BIN } from '../../helpers/child.js';

export interface McpSession {
  client: Client;
  /** A tool's answer: its structured fields, its text and whether it is an error. */
  call(name: string, args?: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

export interface Answer {
  fields: {
    argv?: string[];
    exitCode: number;
    requests: number;
    result?: unknown;
    notices?: string[];
    warnings?: string[];
    error?: { message: string; advice?: string; retryAfterSeconds?: number; problem?: Record<string, unknown> };
  };
  text: string;
  isError: boolean;
}

/** Every answer's raw JSON-RPC result as text, in the order they came. */
export const answers: string[] = [];

/** `rfs mcp …args` with the key and base URL in its environment, connected. */
export async function startMcp(args: string[], env: { baseUrl: string; apiKey: string }): Promise<McpSession> {
  const dir = mkdtempSync(join(tmpdir(), 'rfs-mcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [RFS_BIN, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', RFS_BASE_URL: env.baseUrl, RFS_API_KEY: env.apiKey, RFS_CONFIG_DIR: dir, XDG_STATE_HOME: dir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'rfs-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
      answers.push(JSON.stringify(result));
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      return { fields: result.structuredContent as Answer['fields'], text, isError: result.isError === true };
    },
    async close() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A control or API request to the sandbox, its JSON answer. */
export async function sandboxJson(baseUrl: string, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${response.status}`);
  return response.status === 204 ? null : response.json();
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
