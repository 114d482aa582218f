// webhooks listen --subscribe as a process (cli.md, webhooks) against the sandbox:
// the subscription exists while it runs (its URL ends in rfs-listen-<host>-<pid>), a delivery
// verifies with its secret, and it is gone after SIGINT, SIGTERM and SIGHUP (a closed terminal or
// SSH session), the last line naming a signal from outside; after a SIGKILL the
// next --subscribe names the leftover (off a terminal) and deletes it with --yes.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostSegment } from '../../../../src/commands/webhooks/listen/subscribe.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/index.js';
import { RFS_BIN } from '../../../helpers/child.js';
import { api, until } from '../../deliveries/incident-support.js';

let sandbox: RunningSandbox;
let configDir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  sandbox = await startSandbox({
    port: 0,
    recordings: 0,
    rateLimit: 0,
    deliveryAttempts: 1,
    deliveryBackoffMs: 0,
    deliveryTimeoutMs: 5000,
  });
  configDir = mkdtempSync(join(tmpdir(), 'rfs-listen-subscribe-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGKILL');
      await gone;
    }
  }
  await sandbox.close();
  rmSync(configDir, { recursive: true, force: true });
});

interface Listen {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function listen(extra: string[] = []): Listen {
  const child = spawn(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--subscribe', '--port', '0', '-o', 'ndjson', ...extra], {
    env: {
      PATH: process.env.PATH,
      RFS_CONFIG_DIR: configDir,
      RFS_API_KEY: sandbox.apiKeys.admin,
      RFS_BASE_URL: sandbox.baseUrl,
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  if (child.pid === undefined) throw new Error('listen did not start');
  return { child, pid: child.pid, stdout: () => out, stderr: () => err, exit };
}

async function subscriptions(): Promise<{ id: string; url: string }[]> {
  return ((await api(sandbox, 'GET', '/webhooks?limit=50')) as { data: { id: string; url: string }[] }).data;
}

/** Waits for the subscribed line; returns the subscription's id and URL as printed. */
async function subscribed(l: Listen): Promise<{ id: string; url: string }> {
  let found: { id: string; url: string } | undefined;
  await until('the subscribed line', () => {
    // The secret's line comes right after the subscribed line.
    const m = /^subscribed (wh_\w+) to (\S+)\nsecret of /m.exec(l.stderr());
    if (m) found = { id: m[1] ?? '', url: m[2] ?? '' };
    if (l.child.exitCode !== null) throw new Error(`listen exited ${l.child.exitCode}: ${l.stderr()}`);
    return found !== undefined;
  });
  return found as { id: string; url: string };
}

async function completeRecording(title: string): Promise<string> {
  const rec = await sandbox.control.createRecording({ title, status: 'REVIEW_PENDING' });
  await sandbox.control.setStatus(rec.id, 'COMPLETED');
  return rec.id;
}

const STOPPED: Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', string> = {
  SIGINT: 'stopped listening\n',
  SIGTERM: 'stopped listening: terminated (SIGTERM)\n',
  SIGHUP: 'stopped listening: hung up (SIGHUP)\n',
};

describe.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('webhooks listen --subscribe, stopped by %s', (signal) => {
  it('subscribes while it runs, verifies a delivery with the new secret, and deletes the subscription', async () => {
    const l = listen();
    const { id, url } = await subscribed(l);
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/rfs-listen-${hostSegment()}-${l.pid}$`));
    expect(await subscriptions()).toEqual([expect.objectContaining({ id, url })]);
    expect(l.stderr()).toMatch(new RegExp(`^secret of ${id} \\(shown only this once; .*\\): whsec_\\w+$`, 'm'));

    const recordingId = await completeRecording('Listened to');
    await until('the delivery line', () => l.stdout().includes(recordingId));
    const [line] = l
      .stdout()
      .trim()
      .split('\n')
      .map((s) => JSON.parse(s) as Record<string, unknown>);
    expect(line).toMatchObject({ recordingId, verdict: 'valid', status: 200 });
    await until('the delivery to succeed', async () => (await sandbox.control.stats()).deliveries.succeeded === 1);

    l.child.kill(signal);
    expect((await l.exit).code).toBe(0);
    expect(await subscriptions()).toEqual([]);
    expect(l.stderr()).toContain(`deleted subscription ${id}\n`);
    expect(l.stderr().endsWith(STOPPED[signal])).toBe(true);
  });
});

describe('webhooks listen --subscribe after a SIGKILL', () => {
  it('names the leftover off a terminal, leaves it without --yes, and deletes it with --yes', async () => {
    const first = listen();
    const left = await subscribed(first);
    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    expect((await subscriptions()).map((s) => s.id)).toEqual([left.id]);

    const second = listen();
    const mine = await subscribed(second);
    expect(second.stderr()).toContain(
      `subscription ${left.id} (${left.url}) was left by rfs webhooks listen --subscribe, pid ${first.pid}, which is not running: delete it with rfs webhooks delete ${left.id} --yes, or pass --yes to delete such leftovers\n`,
    );
    expect((await subscriptions()).map((s) => s.id).sort()).toEqual([left.id, mine.id].sort());
    // A leftover of a process that still runs (the second) is not offered.
    const third = listen(['--yes']);
    const other = await subscribed(third);
    expect(third.stderr()).toContain(`deleted subscription ${left.id}\n`);
    expect(third.stderr()).not.toContain(mine.id);
    expect((await subscriptions()).map((s) => s.id).sort()).toEqual([mine.id, other.id].sort());

    second.child.kill('SIGINT');
    third.child.kill('SIGINT');
    expect((await second.exit).code).toBe(0);
    expect((await third.exit).code).toBe(0);
    expect(await subscriptions()).toEqual([]);
  });
});

it('refuses --public-url that is not https, and --event without --subscribe (exit 2, nothing subscribed)', async () => {
  const bad = listen(['--public-url', 'http://example.com/x']);
  expect((await bad.exit).code).toBe(2);
  expect(bad.stderr()).toContain('invalid --public-url "http://example.com/x": expected an https URL');
  expect(await subscriptions()).toEqual([]);
  const plain = spawn(process.execPath, [RFS_BIN, 'webhooks', 'listen', '--port', '0', '--event', 'recording.completed'], {
    env: { PATH: process.env.PATH, RFS_CONFIG_DIR: configDir, RFS_WEBHOOK_SECRET: 'whsec_test' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(plain);
  let err = '';
  plain.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await new Promise((resolve) => plain.once('close', resolve));
  expect(code).toBe(2);
  expect(err).toContain('--event needs --subscribe');
});
