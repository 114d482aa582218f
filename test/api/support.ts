// Shared set-up for the client tests: a scenario server per test, an injected clock whose
// sleep records each wait and moves time on, and clients that are closed afterwards.
import { afterEach, beforeEach } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ClientOptions } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { fakeTime, type FakeTime } from '../helpers/clock.js';
import { startScenarioServer } from '../helpers/scenario-server.js';
import type { ScenarioServer } from '../helpers/scenario-server.js';

export const KEY = 'service_pk_test_0123456789abcdefWXYZ';

export interface Scenario {
  readonly server: ScenarioServer;
  readonly time: FakeTime;
  /** A client for the scenario server: 5 retries, no pacing, random() = 0.5, fake time. */
  client(overrides?: Partial<ClientOptions>): ApiClient;
}

export function useScenario(): Scenario {
  let server: ScenarioServer | undefined;
  let time = fakeTime(1_700_000_000_000);
  let clients: ApiClient[] = [];

  beforeEach(async () => {
    server = await startScenarioServer();
    time = fakeTime(1_700_000_000_000);
    clients = [];
  });

  afterEach(async () => {
    const current = server;
    server = undefined;
    await current?.close();
    await Promise.all(clients.map((c) => c.close()));
    // Every queued response was asked for, and nothing unexpected arrived.
    current?.verify();
  });

  return {
    get server() {
      if (!server) throw new Error('no scenario server outside a test');
      return server;
    },
    get time() {
      return time;
    },
    client(overrides = {}) {
      const client = createApiClient({
        baseUrl: this.server.url,
        apiKey: KEY,
        timeoutMs: 5_000,
        maxRetries: 5,
        ratePerMinute: 0,
        ...time.clock,
        ...overrides,
      });
      clients.push(client);
      return client;
    },
  };
}

/** The rejection of a promise, failing the test if it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the request to fail, but it succeeded');
}

export function problem(status: number, code: string, title: string, requestId = `req_${code.toLowerCase()}`) {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: { type: `https://problems.example/${code.toLowerCase().replace(/_/g, '-')}`, title, status, code, requestId },
  };
}
