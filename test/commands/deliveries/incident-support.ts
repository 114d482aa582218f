// The incident commands' sandbox: three subscriptions — one healthy (its receiver
// answers 200), one refusing (its receiver answers 500), one deleted after its deliveries FAILED
// — and two recordings completed, each delivered to all three. Deliveries give up after two
// attempts 10 ms apart.
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { startReceiver, type Receiver } from './support.js';

export interface IncidentSandbox {
  sandbox: RunningSandbox;
  healthy: Receiver;
  refusing: Receiver;
  ids: { healthy: string; refusing: string; deleted: string };
  close(): Promise<void>;
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function api(sandbox: RunningSandbox, method: string, path: string, body?: unknown, key = 'x'): Promise<unknown> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sandbox.apiKeys.admin}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': `incident-${key}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
  return response.status === 204 ? null : response.json();
}

async function subscribe(sandbox: RunningSandbox, url: string, key: string): Promise<string> {
  const created = (await api(sandbox, 'POST', '/webhooks', { url, events: ['recording.completed'] }, key)) as { data: { id: string } };
  return created.data.id;
}

export async function incidentSandbox(): Promise<IncidentSandbox> {
  const healthy = await startReceiver();
  healthy.answer = () => 200;
  const refusing = await startReceiver();
  const sandbox = await startSandbox({
    port: 0,
    recordings: 0,
    rateLimit: 0,
    deliveryAttempts: 2,
    deliveryBackoffMs: 10,
    deliveryTimeoutMs: 5000,
  });
  const close = async (): Promise<void> => {
    await sandbox.close();
    await healthy.close();
    await refusing.close();
  };
  try {
    const ids = {
      healthy: await subscribe(sandbox, healthy.url, 'healthy'),
      refusing: await subscribe(sandbox, refusing.url, 'refusing'),
      deleted: await subscribe(sandbox, refusing.url.replace('/hook', '/old-hook'), 'deleted'),
    };
    for (const title of ['First call', 'Second call']) {
      const rec = await sandbox.control.createRecording({ title, status: 'REVIEW_PENDING' });
      await sandbox.control.setStatus(rec.id, 'COMPLETED');
    }
    await until('4 FAILED and 2 SUCCEEDED deliveries', async () => {
      const { deliveries } = await sandbox.control.stats();
      return deliveries.failed === 4 && deliveries.succeeded === 2;
    });
    await api(sandbox, 'DELETE', `/webhooks/${ids.deleted}`);
    await sandbox.control.clearRequests();
    return { sandbox, healthy, refusing, ids, close };
  } catch (error) {
    await close();
    throw error;
  }
}
