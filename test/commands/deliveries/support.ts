// A sandbox with FAILED deliveries for the replay tests: a receiver on 127.0.0.1 whose answer
// is chosen per delivery, a subscription to it, and recordings completed through the control
// API, each delivered once (one attempt) and FAILED while the receiver answers 500.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import type { Clock } from '../../../src/core/clock.js';
import { fakeTime, type FakeTime } from '../../helpers/clock.js';

/** What the receiver does with one delivery: answer with a status, or never answer. */
export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  /** Delivery ids in the order their requests arrived (every attempt). */
  received: string[];
  answer: (deliveryId: string) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 500,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-service-delivery'] ?? '');
      receiver.received.push(id);
      const answer = receiver.answer(id);
      if (answer === 'hang') hanging.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

export interface FailedSandbox {
  sandbox: RunningSandbox;
  receiver: Receiver;
  subscriptionId: string;
  /** The FAILED deliveries' ids, oldest first. */
  failed: string[];
  close(): Promise<void>;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A sandbox whose deliveries fail at their first attempt, at once: no recordings of its own, no
 * rate limit, one attempt, no backoff (the incident tests make their own deliveries).
 */
export const FAIL_FAST_SANDBOX = {
  port: 0,
  recordings: 0,
  rateLimit: 0,
  deliveryAttempts: 1,
  deliveryBackoffMs: 0,
  deliveryTimeoutMs: 5000,
} as const;

/** A sandbox holding `count` FAILED deliveries to a receiver that answers 500 until told otherwise. */
export async function sandboxWithFailed(count: number): Promise<FailedSandbox> {
  const receiver = await startReceiver();
  const sandbox = await startSandbox(FAIL_FAST_SANDBOX);
  const close = async (): Promise<void> => {
    await sandbox.close();
    await receiver.close();
  };
  try {
    const created = await fetch(`${sandbox.baseUrl}/api/v1/webhooks`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.apiKeys.admin}`,
        'content-type': 'application/json',
        'idempotency-key': 'replay-tests-1',
      },
      body: JSON.stringify({ url: receiver.url, events: ['recording.completed'] }),
    });
    const subscriptionId = ((await created.json()) as { data: { id: string } }).data.id;
    // One delivery made and FAILED the real way (a recording completed, one attempt answered
    // 500); the others are copies of it under their own ids, put in through the state import,
    // which takes milliseconds where completing 70 recordings one by one takes seconds.
    const rec = await sandbox.control.createRecording({ title: 'Replay me', status: 'REVIEW_PENDING' });
    await sandbox.control.setStatus(rec.id, 'COMPLETED');
    await until('the first FAILED delivery', async () => (await sandbox.control.stats()).deliveries.failed === 1);
    const state = await sandbox.control.exportState();
    const [made] = state.deliveries;
    if (made === undefined) throw new Error('no delivery was made');
    const failed = Array.from({ length: count }, (_, i) => (i === 0 ? made.id : `dlv_copy${String(i).padStart(16, '0')}`));
    state.deliveries = failed.map((id, i) => ({
      ...made,
      id,
      body: made.body.replace(made.id, id),
      createdAt: made.createdAt + i,
      log: [],
    }));
    await sandbox.control.importState(state);
    expect((await sandbox.control.stats()).deliveries.failed).toBe(count);
    await sandbox.control.clearRequests();
    return { sandbox, receiver, subscriptionId, failed, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The fake clock of test/helpers/clock.ts, whose sleeps also give the sandbox a few real
 * milliseconds to deliver: time as the CLI sees it moves on at once, and nothing waits on a
 * real timer of the CLI's own.
 */
export function deliveringTime(realMsPerSleep = 5): FakeTime {
  const time = fakeTime(Date.now());
  const fake = time.clock;
  const clock: Clock = {
    now: fake.now,
    random: fake.random,
    async sleep(ms, signal) {
      await new Promise((resolve) => setTimeout(resolve, realMsPerSleep));
      await fake.sleep(ms, signal);
    },
  };
  return Object.assign(time, { clock });
}
