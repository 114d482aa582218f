import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import type { IO } from '../../src/core/io.js';
import { isLoopbackHost } from '../../src/core/loopback.js';
import { serve as run, sandboxOptions, type SandboxFlags } from '../../src/commands/sandbox/run.js';

function fakeIO(): { io: IO; stdout: () => string; stderr: () => string; firstLine: Promise<string> } {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  let gotLine: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => {
    gotLine = resolve;
  });
  out.on('data', (c: Buffer) => {
    stdout += c.toString();
    if (stdout.includes('\n')) gotLine(stdout.slice(0, stdout.indexOf('\n')));
  });
  err.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const io: IO = {
    stdin: new PassThrough(),
    stdout: out,
    stderr: err,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    columns: 80,
    env: {},
  };
  return { io, stdout: () => stdout, stderr: () => stderr, firstLine };
}

describe('rfs sandbox (run)', () => {
  it('prints one JSON line on stdout and a banner on stderr, serves until the signal aborts, then stops and returns 0', async () => {
    const { io, stdout, stderr, firstLine } = fakeIO();
    const controller = new AbortController();
    const done = run(
      io,
      { host: '127.0.0.1', port: '0', seed: '42', recordings: '10', rateLimit: '120', rateWindow: '60', faults: '0' },
      controller.signal,
    );
    const line = JSON.parse(await firstLine);
    expect(Object.keys(line)).toEqual(['baseUrl', 'apiKeys']);
    expect(line.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(line.apiKeys).sort()).toEqual([
      'admin',
      'noSubscription',
      'otherWorkspace',
      'readOnly',
      'revoked',
      'webhooks',
      'writeOnly',
    ]);

    const res = await fetch(`${line.baseUrl}/api/v1/recordings?limit=1`, { headers: { authorization: `Bearer ${line.apiKeys.admin}` } });
    expect(res.status).toBe(200);
    expect(stderr()).toContain(`rfs sandbox is listening on ${line.baseUrl}`);
    expect(stderr()).toContain(`echo '${line.apiKeys.admin}' | RFS_BASE_URL=${line.baseUrl} rfs auth login --with-key`);
    for (const key of Object.values(line.apiKeys)) expect(stderr()).toContain(key as string);

    controller.abort();
    expect(await done).toBe(0);
    expect(stdout().trim().split('\n')).toHaveLength(1);
    expect(stderr()).toContain('stopped');
    await expect(fetch(`${line.baseUrl}/api/v1/recordings`)).rejects.toThrow();
  });

  it('stops at once when the signal is already aborted', async () => {
    const { io, firstLine } = fakeIO();
    const controller = new AbortController();
    controller.abort();
    expect(await run(io, { port: '0', seed: 'x' }, controller.signal)).toBe(0);
    const line = JSON.parse(await firstLine);
    await expect(fetch(line.baseUrl)).rejects.toThrow();
  });

  it.each<[string, SandboxFlags, RegExp]>([
    ['a port that is not a number', { port: 'http' }, /--port: expected an integer from 0 to 65535/],
    ['a port out of range', { port: '70000' }, /--port/],
    ['a negative recording count', { recordings: '-1' }, /--recordings: expected an integer from 0 to 1000000/],
    ['a fractional recording count', { recordings: '2.5' }, /--recordings/],
    ['a fault rate above 1', { faults: '1.5' }, /--faults: expected a number from 0 to 1/],
    ['a fault rate that is not a number', { faults: 'some' }, /--faults/],
    ['zero delivery attempts', { deliveryAttempts: '0' }, /--delivery-attempts: expected an integer from 1 to 20/],
    ['a negative backoff', { deliveryBackoff: '-5' }, /--delivery-backoff/],
    ['a rate window of 0', { rateWindow: '0' }, /--rate-window: expected an integer from 1 to 86400/],
    ['a rate limit in hex', { rateLimit: '0x10' }, /--rate-limit/],
    ['an empty host', { host: ' ' }, /--host/],
    ['an empty seed', { seed: '' }, /--seed/],
  ])('refuses %s with a UsageError naming the allowed range', async (_name, flags, message) => {
    const { io } = fakeIO();
    const error = await run(io, flags, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('turns flags into sandbox options', () => {
    expect(
      sandboxOptions({
        host: '0.0.0.0',
        port: '4011',
        seed: 'abc',
        recordings: '100',
        data: 'state.json',
        rateLimit: '0',
        rateWindow: '30',
        faults: '0.25',
        deliveryAttempts: '3',
        deliveryBackoff: '250',
        allowPrivateWebhooks: true,
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 4011,
      seed: 'abc',
      recordings: 100,
      dataFile: 'state.json',
      rateLimit: 0,
      rateWindowSeconds: 30,
      faults: 0.25,
      deliveryAttempts: 3,
      deliveryBackoffMs: 250,
      allowPrivateWebhooks: true,
    });
    expect(sandboxOptions({})).toEqual({});
  });

  it('reports a port in use as a usage error with a hint', async () => {
    const first = fakeIO();
    const controller = new AbortController();
    const running = run(first.io, { port: '0', seed: 'a' }, controller.signal);
    const { baseUrl } = JSON.parse(await first.firstLine);
    try {
      const port = new URL(baseUrl).port;
      const error = await run(fakeIO().io, { port, seed: 'b' }, new AbortController().signal).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).hint).toContain('--port 0');
    } finally {
      controller.abort();
      await running;
    }
  });

  // the control API has no key, so a bind beyond loopback is said loudly.
  describe('a host beyond loopback', () => {
    async function started(flags: SandboxFlags): Promise<{ stderr: string; baseUrl: string }> {
      const { io, stderr, firstLine } = fakeIO();
      const controller = new AbortController();
      const done = run(io, { port: '0', seed: 'remote', recordings: '1', ...flags }, controller.signal);
      try {
        const { baseUrl } = JSON.parse(await firstLine) as { baseUrl: string };
        // Talked to on loopback only, whatever it bound.
        const local = `http://127.0.0.1:${new URL(baseUrl).port}`;
        expect((await fetch(`${local}/_sandbox/stats`)).status).toBe(200);
        return { stderr: stderr(), baseUrl };
      } finally {
        controller.abort();
        expect(await done).toBe(0);
      }
    }

    it('warns on stderr that the keyless control API is reachable from the network, and still serves', async () => {
      const { stderr } = await started({ host: '0.0.0.0' });
      expect(stderr).toContain('warning: --host 0.0.0.0 is not a loopback address');
      expect(stderr).toContain('control API (/_sandbox/…, no key) can be reached');
      expect(stderr).toContain('--allow-remote-control');
    });

    it('says nothing with --allow-remote-control, nor on loopback', async () => {
      expect((await started({ host: '0.0.0.0', allowRemoteControl: true })).stderr).not.toContain('warning:');
      expect((await started({ host: '127.0.0.1' })).stderr).not.toContain('warning:');
    });

    it("counts only this machine's addresses as loopback", () => {
      for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])
        expect(isLoopbackHost(host), host).toBe(true);
      for (const host of ['0.0.0.0', '::', '[::]', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example.com'])
        expect(isLoopbackHost(host), host).toBe(false);
    });
  });
});
