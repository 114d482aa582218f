// An incident at scale: one live subscription with 55 FAILED deliveries over the
// last 20 minutes (HTTP 503, HTTP 500 and a refused connection in turn), and a subscription that rfs saw (`webhooks
// list`) and that was deleted after its 2 deliveries FAILED 25 minutes ago: every FAILED list
// the API gives comes back full of the live one's newer deliveries. Each delivery carries the
// attempt its fields say (GET /_sandbox/deliveries/:id/attempts), so a filter can be checked
// against the sandbox's attempt log. Built through the state import (milliseconds, where 57
// recordings completed one by one take seconds); times are minutes before `now` plus 30 s, so
// ages read the same for half a minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/run.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { fakeTime } from '../../helpers/clock.js';
import { bufferIO } from '../../helpers/io.js';
import { FAIL_FAST_SANDBOX, startReceiver, type Receiver } from './support.js';
import { api, until } from './incident-support.js';

export interface ScaleIncident {
  sandbox: RunningSandbox;
  receiver: Receiver;
  live: string;
  deleted: string;
  /** Delivery ids, oldest first. */
  failed: { live: string[]; deleted: string[] };
  /** The time the attempts are placed before. */
  now: number;
  /** A folder for XDG_STATE_HOME (the remembered subscriptions) and RFS_CONFIG_DIR. */
  home: string;
  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

const MINUTE = 60_000;

/** `live` FAILED deliveries of the live subscription, attempt i at (20 − ⌊20·i/live⌋) min + 30 s before now. */
export async function incidentAtScale(o: { now?: number; live?: number } = {}): Promise<ScaleIncident> {
  const now = o.now ?? Date.now();
  const liveCount = o.live ?? 55;
  const receiver = await startReceiver();
  const sandbox = await startSandbox(FAIL_FAST_SANDBOX);
  const home = mkdtempSync(join(tmpdir(), 'rfs-scale-'));
  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    NO_COLOR: '1',
    XDG_STATE_HOME: join(home, 'state'),
    RFS_CONFIG_DIR: join(home, 'config'),
    RFS_API_KEY: sandbox.apiKeys.admin,
    RFS_BASE_URL: sandbox.baseUrl,
    TZ: 'UTC',
    ...extra,
  });
  const close = async (): Promise<void> => {
    await sandbox.close();
    await receiver.close();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const subscribe = async (url: string, key: string): Promise<string> =>
      ((await api(sandbox, 'POST', '/webhooks', { url, events: ['recording.completed'] }, key)) as { data: { id: string } }).data.id;
    const deleted = await subscribe(receiver.url.replace('/hook', '/old-hook'), 'scale-deleted');
    const live = await subscribe(receiver.url, 'scale-live');
    const rec = await sandbox.control.createRecording({ title: 'Incident', status: 'REVIEW_PENDING' });
    await sandbox.control.setStatus(rec.id, 'COMPLETED');
    await until('two FAILED deliveries', async () => (await sandbox.control.stats()).deliveries.failed === 2);
    const state = await sandbox.control.exportState();
    const made = (sub: string) => {
      const d = state.deliveries.find((x) => x.subscriptionId === sub);
      if (d === undefined) throw new Error(`no delivery for ${sub}`);
      return d;
    };
    const copy = (sub: string, n: number, minutesAgo: number, status: number | null) => {
      const template = made(sub);
      const id = `dlv_scale${sub === live ? 'L' : 'D'}${String(n).padStart(14, '0')}`;
      const at = now - minutesAgo * MINUTE - 30_000;
      const error = status === null ? 'connect ECONNREFUSED 127.0.0.1:9' : `HTTP ${status}`;
      return {
        ...template,
        id,
        body: template.body.replace(template.id, id),
        createdAt: at,
        attempts: 1,
        roundAttempts: 1,
        lastAttemptAt: at,
        lastResponseStatus: status,
        lastError: error,
        log: template.log[0] ? [{ ...template.log[0], attempt: 1, at, responseStatus: status, error }] : [],
      };
    };
    const deletedRows = [copy(deleted, 0, 25, 503), copy(deleted, 1, 24, 503)];
    const answers = [503, 500, null] as const;
    const liveRows = Array.from({ length: liveCount }, (_, i) =>
      copy(live, i, 20 - Math.floor((20 * i) / liveCount), answers[i % 3] ?? null),
    );
    state.deliveries = [...deletedRows, ...liveRows];
    await sandbox.control.importState(state);
    // rfs sees both subscriptions, as an operator's `webhooks list` would, then one is deleted.
    const t = bufferIO({ env: env() });
    const code = await runCli(['webhooks', 'list', '-o', 'json'], t.io, { clock: fakeTime(now).clock });
    if (code !== 0) throw new Error(`webhooks list: exit ${code}: ${t.stderr()}`);
    await api(sandbox, 'DELETE', `/webhooks/${deleted}`);
    await sandbox.control.clearRequests();
    return {
      sandbox,
      receiver,
      live,
      deleted,
      failed: { live: liveRows.map((d) => d.id), deleted: deletedRows.map((d) => d.id) },
      now,
      home,
      env,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
