import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature, type SignatureCheck } from '../../src/shared/signature.js';
import { eventually, sleep, start, startReceiver, type Harness, type Receiver } from './helpers.js';

let h: Harness;
let receiver: Receiver;
let n = 0;

beforeEach(async () => {
  receiver = await startReceiver('/hook', { checkDeliveries: true });
  h = await start({ rateLimit: 0, deliveryAttempts: 1, deliveryBackoffMs: 10, deliveryTimeoutMs: 1000 });
});
afterEach(async () => {
  await h.close();
  await receiver.close();
});

async function subscribe(): Promise<string> {
  const res = await h.api('/webhooks', {
    body: { url: receiver.url, events: ['recording.completed'] },
    headers: { 'idempotency-key': `recv-fault-${++n}` },
  });
  expect(res.status).toBe(201);
  return res.json.data.secret as string;
}

async function complete(): Promise<string> {
  const id = (await h.control('/recordings', { status: 'REVIEW_PENDING' })).json.data.id as string;
  await h.control(`/recordings/${id}/status`, { status: 'COMPLETED' });
  return id;
}

/** What a receiver that follows api.md concludes about each request it got. */
function checks(secret: string): (SignatureCheck & { delivery: string })[] {
  return receiver.received.map((r) => ({
    delivery: r.headers['x-service-delivery'] as string,
    ...verifySignature({
      secret,
      timestamp: r.headers['x-service-timestamp'] as string | undefined,
      signature: r.headers['x-service-signature'] as string | undefined,
      body: r.body,
      toleranceSeconds: 300,
      nowSeconds: Date.now() / 1000,
    }),
  }));
}

const deliveryFaults = (body: unknown) => h.control('/delivery-faults', body);

describe('receiver faults', () => {
  it('delivers with a valid signature when none are set', async () => {
    const secret = await subscribe();
    await complete();
    await receiver.waitFor(1);
    expect(checks(secret).map((c) => c.valid)).toEqual([true]);
  });

  it('duplicate: the same delivery arrives twice, byte for byte, and verifies both times', async () => {
    const secret = await subscribe();
    expect((await deliveryFaults({ duplicate: 1 })).json.data).toEqual({ duplicate: 1, stale: 0, badSignature: 0 });
    await complete();
    const [a, b] = await receiver.waitFor(2);
    expect(a?.body.equals(b?.body ?? Buffer.alloc(0))).toBe(true);
    expect(a?.headers['x-service-delivery']).toBe(b?.headers['x-service-delivery']);
    expect(a?.headers['x-service-signature']).toBe(b?.headers['x-service-signature']);
    expect(checks(secret).map((c) => c.valid)).toEqual([true, true]);
    // Counted as one attempt of one delivery.
    const delivery = await eventually(async () => {
      const d = (await h.api('/webhooks/deliveries')).json.data[0];
      return d?.status === 'SUCCEEDED' ? d : undefined;
    });
    expect(delivery.attempts).toBe(1);
  });

  it('stale: signed with a timestamp older than 300 s, which a receiver refuses as stale', async () => {
    const secret = await subscribe();
    await deliveryFaults({ stale: 1 });
    await complete();
    await receiver.waitFor(1);
    const [check] = checks(secret);
    expect(check?.reason).toBe('stale');
    expect(check?.ageSeconds).toBeGreaterThan(300);
    expect(check?.ageSeconds).toBeLessThan(1000);
  });

  it('badSignature: signed with another secret, which a receiver refuses as a mismatch', async () => {
    const secret = await subscribe();
    await deliveryFaults({ badSignature: 1 });
    await complete();
    await receiver.waitFor(1);
    expect(checks(secret).map((c) => c.reason)).toEqual(['mismatch']);
  });

  it('rates between 0 and 1 affect some deliveries, and 0 turns them off again', async () => {
    const secret = await subscribe();
    await deliveryFaults({ badSignature: 0.5 });
    for (let i = 0; i < 16; i++) await complete();
    await receiver.waitFor(16);
    const reasons = checks(secret).map((c) => c.reason);
    expect(reasons.filter((r) => r === 'mismatch').length).toBeGreaterThan(0);
    expect(reasons.filter((r) => r === null).length).toBeGreaterThan(0);
    await deliveryFaults({});
    receiver.received.length = 0;
    await complete();
    await receiver.waitFor(1);
    await sleep(50);
    expect(checks(secret).map((c) => c.valid)).toEqual([true]);
  });

  it('validates its body, naming the bad field', async () => {
    for (const [body, path] of [
      [{ duplicate: 2 }, 'duplicate'],
      [{ stale: -0.1 }, 'stale'],
      [{ badSignature: 'yes' }, 'badSignature'],
      [{ lost: 1 }, ''],
    ] as const) {
      const res = await deliveryFaults(body);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 'INVALID_INPUT', path });
    }
  });
});
