// The control API as typed methods (sandbox.md, In an integrator's own tests): what
// startSandbox() hands out as `control`, so a test suite drives the sandbox without writing
// URLs. Plain fetch: nothing else is loaded with the library.
import type { Priority, RecordingDetail, RecordingStatus } from '../shared/schemas.js';
import type { DeliveryFaultRates } from './delivery-faults.js';
import type { FaultConfig, FaultKind, ScriptedFault } from './faults.js';
import type { ExportedState, StoredState } from './persistence.js';
import type { LoggedRequest } from './request-log.js';
import type { ReceiverMode, ReceiverView } from './receivers.js';
import type { DeliveryAttempt, WorkspaceId } from './types.js';

export type { DeliveryFaultRates } from './delivery-faults.js';
export type { FaultKind } from './faults.js';
export type { LoggedRequest } from './request-log.js';
/** The whole state, in the format of --data, GET /_sandbox/state?includeSeed=1 and --fixtures. */
export type SandboxState = StoredState;
/** A state as GET /_sandbox/state exports it by default: without the seed. */
export type { ExportedState } from './persistence.js';

export interface NewRecording {
  workspace?: WorkspaceId;
  title?: string;
  /** Default PENDING. */
  status?: RecordingStatus;
  priority?: Priority;
}

/** One step of a fault script: the next `times` requests that match get `kind`. */
export interface FaultScriptStep {
  /** Text the path must contain, e.g. "/filings"; any path when left out. */
  match?: string | null;
  method?: 'GET' | 'POST' | 'DELETE' | null;
  kind: FaultKind;
  times: number;
  /** For `delay`: how long; a random 1 to 3 s when left out. */
  delayMs?: number | null;
}

/** Everything left out takes its default: rate 0, every kind, no script. */
export interface FaultSettings {
  rate?: number;
  kinds?: FaultKind[];
  delayMs?: number | null;
  match?: string | null;
  script?: FaultScriptStep[];
}

export interface FaultsInForce extends FaultConfig {
  /** What is left of the script; absent when nothing is. */
  script?: ScriptedFault[];
}

/** A delivery attempt as GET /_sandbox/deliveries/:id/attempts answers it: its time as ISO 8601. */
export type DeliveryAttemptRecord = Omit<DeliveryAttempt, 'at'> & { at: string };

/** A receiver a scenario runs, as GET /_sandbox/receivers lists it: with the subscription that sends to it. */
export interface ScenarioReceiver extends ReceiverView {
  subscriptionId: string;
}

export interface SandboxStats {
  requests: number;
  faults: Record<FaultKind, number>;
  filings: number;
  filingReplays: number;
  deliveries: { total: number; pending: number; succeeded: number; failed: number; attempts: number };
}

/** A control request the sandbox refused; `path` names the bad field of a body, when one was. */
export class SandboxControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly path: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxControlError';
  }
}

export class SandboxControl {
  constructor(private readonly baseUrl: string) {}

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const init: RequestInit = { method };
    // The control API takes a change only as application/json (control-guard.ts): `{}` when there is nothing to say.
    if (body !== undefined || method === 'POST' || method === 'PUT') {
      init.body = JSON.stringify(body ?? {});
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await fetch(`${this.baseUrl}/_sandbox/${path}`, init);
    const text = await res.text();
    let value: unknown;
    try {
      value = text === '' ? undefined : JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!res.ok) {
      const problem = (value ?? {}) as { code?: string; detail?: string; title?: string; path?: string };
      throw new SandboxControlError(
        res.status,
        problem.code ?? null,
        problem.path ?? null,
        `${method} /_sandbox/${path}: ${res.status} ${problem.code ?? ''} ${problem.detail ?? problem.title ?? ''}`.trim(),
      );
    }
    return value;
  }

  private async data<T>(method: string, path: string, body?: unknown): Promise<T> {
    return ((await this.call(method, path, body)) as { data: T }).data;
  }

  /** Resolves once the sandbox serves (GET /_sandbox/health). */
  async health(): Promise<{ status: 'ok' }> {
    return (await this.call('GET', 'health')) as { status: 'ok' };
  }

  createRecording(input: NewRecording = {}): Promise<RecordingDetail> {
    return this.data('POST', 'recordings', input);
  }

  /** A change to COMPLETED dispatches recording.completed to the subscriptions. */
  setStatus(recordingId: string, status: RecordingStatus): Promise<RecordingDetail> {
    return this.data('POST', `recordings/${encodeURIComponent(recordingId)}/status`, { status });
  }

  deliveryAttempts(deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    return this.data('GET', `deliveries/${encodeURIComponent(deliveryId)}/attempts`);
  }

  faults(): Promise<FaultsInForce> {
    return this.data('GET', 'faults');
  }

  /** Replaces the fault set-up; `setFaults({})` is refused: say `{rate: 0}` to turn faults off. */
  setFaults(settings: FaultSettings): Promise<FaultsInForce> {
    return this.data('POST', 'faults', settings);
  }

  /** Rates (0 to 1) of deliveries sent twice, with a stale timestamp, or signed with another secret. */
  setDeliveryFaults(rates: Partial<DeliveryFaultRates>): Promise<DeliveryFaultRates> {
    return this.data('POST', 'delivery-faults', rates);
  }

  /** The receivers of --scenario incident (healthy, failing, deleted); empty without a scenario. */
  receivers(): Promise<ScenarioReceiver[]> {
    return this.data('GET', 'receivers');
  }

  /**
   * Switches a scenario's receiver: `ok` answers 200 (after `ok` on `failing`, new attempts and
   * replays succeed), `fail` a mix of 500, 503, timeouts and resets, `down` refuses connections.
   */
  setReceiver(name: string, mode: ReceiverMode): Promise<ScenarioReceiver> {
    return this.data('POST', `receivers/${encodeURIComponent(name)}`, { mode });
  }

  /** Back to the seeded state (with --scenario, the scenario made again as of now). */
  async reset(): Promise<void> {
    await this.call('POST', 'reset');
  }

  async stats(): Promise<SandboxStats> {
    return (await this.call('GET', 'stats')) as SandboxStats;
  }

  /** The /api/v1 requests answered, oldest first; with `since`, only those after that seq. */
  requests(since?: number): Promise<LoggedRequest[]> {
    return this.data('GET', since === undefined ? 'requests' : `requests?since=${since}`);
  }

  async clearRequests(): Promise<void> {
    await this.call('DELETE', 'requests');
  }

  /**
   * The whole state. Without `includeSeed` it leaves out the seed, from which every key of the
   * sandbox can be rebuilt; importState() and `fixtures` take such a state as made with their own seed.
   */
  async exportState(options: { includeSeed: true }): Promise<SandboxState>;
  async exportState(options?: { includeSeed?: boolean }): Promise<ExportedState>;
  async exportState(options: { includeSeed?: boolean } = {}): Promise<ExportedState> {
    return (await this.call('GET', options.includeSeed ? 'state?includeSeed=1' : 'state')) as ExportedState;
  }

  async importState(state: ExportedState): Promise<void> {
    await this.call('PUT', 'state', state);
  }

  /** Saves the state in memory under `name` (a name taken is replaced); beyond 20 snapshots, a SandboxControlError 409. */
  async saveSnapshot(name: string): Promise<void> {
    await this.call('POST', 'snapshots', { name });
  }

  /** Forgets a snapshot: at most 20 are kept, and a new name beyond that is refused (409). */
  async deleteSnapshot(name: string): Promise<void> {
    await this.call('DELETE', `snapshots/${encodeURIComponent(name)}`);
  }

  async restoreSnapshot(name: string): Promise<void> {
    await this.call('POST', `snapshots/${encodeURIComponent(name)}/restore`);
  }
}
