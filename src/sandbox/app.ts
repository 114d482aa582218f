// The sandbox's services: the state (recordings, webhooks), and the operations that change it
// together with what must follow (deliveries on completion, saving). Routes parse and validate;
// everything that touches state goes through here.
import { randomInt } from 'node:crypto';
import type { Priority, RecordingStatus } from '../shared/schemas.js';
import type { SandboxConfig } from './config.js';
import { CursorCodec } from './cursor.js';
import { DeliveryFaults } from './delivery-faults.js';
import { Faults, faultConfig } from './faults.js';
import { FixtureError, fixtureRecording, type CheckedFixture } from './fixtures.js';
import { generateRecordings, generatedCount, makePeople, newRecording, type People } from './generator.js';
import { KeyRing, type KeyEntry, type SandboxKeys } from './keys.js';
import type { JournalBatch } from './journal.js';
import {
  restoredDelivery,
  restoredRecording,
  restoredSubscription,
  storedRecording,
  STATE_FORMAT,
  type StoredState,
} from './persistence.js';
import { ProblemError, notFound } from './problem.js';
import { randomBase62 } from '../shared/ids.js';
import { Rng, derive, derive32 } from './random.js';
import { RateLimiter } from './rate-limit.js';
import type { ReceiverView, Receivers } from './receivers.js';
import { RecordingStore, type FilingInput } from './recordings.js';
import { INCIDENT_RECEIVERS, buildIncident, type IncidentReceiver } from './scenario.js';
import { RequestLog } from './request-log.js';
import { Saver, type PendingChanges } from './saver.js';
import { MAX_SNAPSHOTS, copyRecording, copyWebhookStore, type Snapshot } from './snapshots.js';
import { WORKSPACES, WORKSPACE_TABLE, type Change, type FilingData, type Recording, type Scope, type WorkspaceId } from './types.js';
import { defaultResolver, type UrlPolicy } from './url-guard.js';
import { Views } from './views.js';
import { WebhookService } from './webhook-service.js';
import { WebhookStore, type IdempotencyEntry } from './webhooks-store.js';

export class App {
  readonly keys: SandboxKeys;
  readonly limiter: RateLimiter;
  readonly faults: Faults;
  readonly deliveryFaults: DeliveryFaults;
  readonly requestLog = new RequestLog();
  readonly cursors: CursorCodec;
  readonly views: Views;
  readonly webhooks: WebhookService;
  readonly stats = { requests: 0, filings: 0, filingReplays: 0 };
  readonly now: () => number;
  /** What a webhook URL may be (POST /webhooks, every delivery attempt, and a state's subscriptions). */
  readonly urlPolicy: UrlPolicy;
  private readonly ring: KeyRing;
  private readonly material: Buffer;
  private readonly saver: Saver | null;
  private people: Record<WorkspaceId, People>;
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly deliveryRules: { maxAttempts: number; backoffMs: number; timeoutMs: number };
  /** --scenario incident: the receivers it runs and the subscription of each; null without a scenario. */
  private incident: { receivers: Receivers; subscriptionIds: Record<IncidentReceiver, string> } | null = null;
  recordings: RecordingStore;
  /** Generated recordings in main: from the options, the data file or the last state put. */
  recordingCount: number;

  constructor(
    config: SandboxConfig,
    readonly seed: string,
    recordingCount: number,
    material: Buffer,
    stored: StoredState | null,
  ) {
    this.material = material;
    this.recordingCount = recordingCount;
    this.now = config.now;
    const { ring, keys } = KeyRing.create(material);
    this.ring = ring;
    this.keys = keys;
    this.limiter = new RateLimiter(config.rateLimit, config.rateWindowSeconds);
    this.faults = new Faults(faultConfig(config.faults), new Rng(derive32(material, 'faults')));
    this.deliveryFaults = new DeliveryFaults(new Rng(derive32(material, 'delivery-faults')));
    this.cursors = new CursorCodec(derive(material, 'cursor-secret'), config.cursorTtlMs, config.now);
    this.deliveryRules = {
      maxAttempts: config.deliveryAttempts,
      backoffMs: config.deliveryBackoffMs,
      timeoutMs: config.deliveryTimeoutMs,
    };
    this.people = Object.fromEntries(WORKSPACES.map((ws) => [ws, makePeople(material, ws)])) as Record<WorkspaceId, People>;
    this.views = new Views((ws) => this.people[ws]);
    this.recordings = this.seededRecordings(stored);
    this.saver = config.dataFile === null ? null : new Saver(config.dataFile, this, config.log);
    this.urlPolicy = { allowPrivate: config.allowPrivateWebhooks, resolveHost: config.resolveHost ?? defaultResolver };
    this.webhooks = new WebhookService(storedWebhooks(stored), {
      policy: this.urlPolicy,
      maxAttempts: config.deliveryAttempts,
      backoffMs: config.deliveryBackoffMs,
      timeoutMs: config.deliveryTimeoutMs,
      now: config.now,
      log: config.log,
      changed: (change) => this.changed(change),
      faults: this.deliveryFaults,
      payloadData: (rec) => this.views.webhookData(rec),
    });
  }

  private seededRecordings(stored: StoredState | null): RecordingStore {
    const taken = new Set<string>();
    const all = WORKSPACES.flatMap((ws) =>
      generateRecordings(this.material, ws, generatedCount(ws, this.recordingCount), this.people[ws], taken),
    );
    if (stored) {
      const saved = new Map(stored.changedRecordings.map((r) => [r.id, restoredRecording(r)]));
      for (let i = 0; i < all.length; i++) {
        const replacement = saved.get((all[i] as Recording).id);
        if (replacement) {
          all[i] = replacement;
          saved.delete(replacement.id);
        }
      }
      // What is left was made through the control API.
      for (const rec of saved.values()) all.push(rec);
    }
    return new RecordingStore(all);
  }

  // --- authentication, plan, scope and rate (api.md, Authentication; in this order) ---

  private keyEntry(authorization: string | undefined): KeyEntry | null {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    return match?.[1] === undefined ? null : this.ring.find(match[1]);
  }

  /** The name of the sandbox key presented (for the request log); null for none or an unknown one. */
  keyName(authorization: string | undefined): keyof SandboxKeys | null {
    return this.keyEntry(authorization)?.name ?? null;
  }

  /** `presented` learns the key's name as soon as it is known, for the request log. */
  authorize(authorization: string | undefined, scope: Scope, presented?: { key: keyof SandboxKeys | null | undefined }): WorkspaceId {
    const entry = this.keyEntry(authorization);
    if (presented) presented.key = entry?.name ?? null;
    if (entry === null || entry.revoked) {
      throw new ProblemError('UNAUTHORIZED', 'send a valid, unrevoked key as Authorization: Bearer <key>', {
        headers: { 'www-authenticate': 'Bearer' },
      });
    }
    if (!WORKSPACE_TABLE[entry.workspace].eligible) {
      throw new ProblemError(
        'SUBSCRIPTION_REQUIRED',
        `the ${WORKSPACE_TABLE[entry.workspace].plan} plan has no API access; Pro or Enterprise is needed`,
      );
    }
    if (!entry.scopes.has(scope)) throw new ProblemError('INSUFFICIENT_SCOPE', `this endpoint needs the ${scope} scope`);
    const decision = this.limiter.take(entry.workspace, this.now());
    if (!decision.ok) {
      throw new ProblemError('RATE_LIMIT_EXCEEDED', `retry in ${decision.retryAfterSeconds} s`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
    return entry.workspace;
  }

  // --- recordings ---

  file(workspace: WorkspaceId, id: string, input: FilingInput): { data: FilingData; replayed: boolean } {
    const rec = this.recordings.get(workspace, id);
    if (!rec) throw notFound('no such recording in this workspace');
    if (rec.status !== 'COMPLETED')
      throw new ProblemError('RECORDING_NOT_COMPLETED', `the recording is ${rec.status}; only COMPLETED recordings can be filed`);
    const result = this.recordings.file(rec, input, this.now());
    if (result.replayed) this.stats.filingReplays++;
    else {
      this.stats.filings++;
      this.changed({ kind: 'recording', id: rec.id });
    }
    return result;
  }

  createRecording(input: {
    workspace: WorkspaceId;
    title?: string | undefined;
    status: RecordingStatus;
    priority?: Priority | undefined;
  }): Recording {
    let id = `rec_${randomBase62(16)}`;
    while (this.recordings.has(id)) id = `rec_${randomBase62(16)}`;
    const rec = newRecording(input.workspace, this.people[input.workspace], input, id, randomInt(0, 2 ** 32 - 1), this.now());
    this.recordings.add(rec);
    if (rec.status === 'COMPLETED') this.webhooks.dispatchCompleted(rec);
    this.changed({ kind: 'recording', id: rec.id });
    return rec;
  }

  setStatus(id: string, status: RecordingStatus): Recording {
    const rec = this.recordings.find(id);
    if (!rec) throw notFound('no such recording');
    if (this.recordings.setStatus(rec, status, this.now())) this.webhooks.dispatchCompleted(rec);
    this.changed({ kind: 'recording', id: rec.id });
    return rec;
  }

  // --- scenario (sandbox.md, Rehearsing an incident) ---

  /** Adds the incident's two hours of history, its subscriptions sending to `receivers`, which this app then owns. */
  startIncident(receivers: Receivers): Record<IncidentReceiver, string> {
    const urls = Object.fromEntries(
      (Object.keys(INCIDENT_RECEIVERS) as IncidentReceiver[]).map((name) => [name, receivers.get(name)?.url ?? '']),
    ) as Record<IncidentReceiver, string>;
    const incident = buildIncident({
      material: this.material,
      now: this.now(),
      urls,
      people: this.people.main,
      ...this.deliveryRules,
      payloadData: (rec) => this.views.webhookData(rec),
    });
    for (const rec of incident.recordings) this.recordings.add(rec);
    this.webhooks.addHistory(incident.subscriptions, incident.deliveries, incident.nextAttemptAt);
    this.incident = { receivers, subscriptionIds: incident.subscriptionIds };
    this.changed();
    return incident.subscriptionIds;
  }

  /** The scenario's receivers with their subscriptions; empty without a scenario. */
  receivers(): (ReceiverView & { subscriptionId: string })[] {
    const incident = this.incident;
    if (!incident) return [];
    return incident.receivers.list().map((r) => ({ ...r, subscriptionId: incident.subscriptionIds[r.name as IncidentReceiver] ?? '' }));
  }

  /** Switches a receiver of the scenario; null when there is none of that name. */
  async setReceiverMode(name: string, mode: ReceiverView['mode']): Promise<(ReceiverView & { subscriptionId: string }) | null> {
    const incident = this.incident;
    const view = incident && (await incident.receivers.setMode(name, mode));
    if (!incident || !view) return null;
    return { ...view, subscriptionId: incident.subscriptionIds[name as IncidentReceiver] ?? '' };
  }

  // --- control ---

  /**
   * Back to the seeded state: same seed, keys and recordings; no subscriptions or deliveries but
   * a scenario's, made again as of now, its receivers back in their first modes.
   */
  async reset(): Promise<void> {
    await this.webhooks.reset();
    this.recordings = this.seededRecordings(null);
    this.views.clearCache();
    this.limiter.reset();
    const incident = this.incident;
    if (incident) {
      for (const [name, mode] of Object.entries(INCIDENT_RECEIVERS)) await incident.receivers.setMode(name, mode);
      this.startIncident(incident.receivers);
    }
    this.changed();
  }

  snapshot(): StoredState {
    const changedRecordings: StoredState['changedRecordings'] = [];
    for (const rec of this.recordings.all()) if (rec.changed) changedRecordings.push(storedRecording(rec));
    const idempotency: StoredState['idempotency'] = [];
    const webhooks = this.webhooks.data;
    for (const [key, entry] of webhooks.idempotency) {
      if (entry.state === 'done') idempotency.push({ key, at: entry.at, status: entry.status, body: entry.body });
    }
    return {
      format: STATE_FORMAT,
      version: 1,
      seed: this.seed,
      recordings: this.recordingCount,
      changedRecordings,
      subscriptions: [...webhooks.subscriptions.values()],
      deliveries: [...webhooks.deliveries.values()],
      idempotency,
    };
  }

  /** Replaces the whole state with one of the --data format (PUT /_sandbox/state). */
  async replaceState(stored: StoredState): Promise<void> {
    // The seed also makes the keys: a state of another seed would lock out the keys in use.
    if (stored.seed !== this.seed)
      throw new ProblemError('INVALID_INPUT', "seed: the state was made with another seed than this sandbox's");
    await this.webhooks.replace(storedWebhooks(stored));
    this.recordingCount = stored.recordings;
    this.recordings = this.seededRecordings(stored);
    this.afterReplace();
  }

  /**
   * Adds the recordings of a plain fixture list: every field given is taken as given; a
   * recording without createdAt is made one second after the one before it, in the list's order.
   */
  addFixtures(list: CheckedFixture[]): void {
    const start = this.now() - list.length * 1000;
    list.forEach((fixture, i) => {
      const workspace = fixture.workspace ?? 'main';
      const id = fixture.id ?? `rec_${randomBase62(16)}`;
      if (this.recordings.has(id)) throw new FixtureError(`[${i}].id`, `${id} is already a recording of the sandbox`);
      const input = { title: fixture.title, status: fixture.status ?? 'COMPLETED', priority: fixture.priority };
      // Content comes from the seed and the position, so a fixture list under --seed serves the same text every start.
      const people = this.people[workspace];
      const made = newRecording(workspace, people, input, id, derive32(this.material, `fixture:${i}`), start + i * 1000);
      this.recordings.add(fixtureRecording(fixture, made, people));
    });
    this.changed();
  }

  /** Keeps a copy of the state in memory under this name (POST /_sandbox/snapshots); a name taken is replaced. */
  saveSnapshot(name: string): void {
    if (!this.snapshots.has(name) && this.snapshots.size >= MAX_SNAPSHOTS) {
      throw new ProblemError('SNAPSHOT_LIMIT_EXCEEDED', `the sandbox holds ${MAX_SNAPSHOTS} snapshots, the most it keeps`, {
        extra: {
          detail: `the sandbox holds ${MAX_SNAPSHOTS} snapshots, the most it keeps: save under a name already taken, or DELETE /_sandbox/snapshots/:name first`,
        },
      });
    }
    this.snapshots.set(name, {
      recordingCount: this.recordingCount,
      recordings: Array.from(this.recordings.all(), copyRecording),
      webhooks: copyWebhookStore(this.webhooks.data),
    });
  }

  /** Forgets a snapshot (DELETE /_sandbox/snapshots/:name); false when there is none of that name. */
  deleteSnapshot(name: string): boolean {
    return this.snapshots.delete(name);
  }

  /** Brings a snapshot back; false when there is none of that name. The snapshot stays for another restore. */
  async restoreSnapshot(name: string): Promise<boolean> {
    const snapshot = this.snapshots.get(name);
    if (!snapshot) return false;
    await this.webhooks.replace(copyWebhookStore(snapshot.webhooks));
    this.recordingCount = snapshot.recordingCount;
    this.recordings = new RecordingStore(snapshot.recordings.map(copyRecording));
    this.afterReplace();
    return true;
  }

  private afterReplace(): void {
    // Cached answers are keyed by a recording's version, which a restored recording may repeat.
    this.views.clearCache();
    this.limiter.reset();
    this.changed();
  }

  /** One entity changed, or (no argument) the state as a whole: --data writes it before the answer. */
  changed(change?: Change): void {
    if (change) this.saver?.note(change);
    else this.saver?.everything();
  }

  /**
   * Settles once every change made so far is on disk (--data); null when nothing waits to be
   * written. Answers wait for it, so nothing is acknowledged that a crash could lose.
   */
  durable(): Promise<void> | null {
    const written = this.saver?.durable() ?? null;
    return (
      written?.catch(() => {
        throw new ProblemError('INTERNAL_ERROR', 'the change was made but could not be written to the data file');
      }) ?? null
    );
  }

  /** Settles once what was noted is on disk (--data), rejecting with the write's own error. */
  written(): Promise<void> | null {
    return this.saver?.durable() ?? null;
  }

  /** The changed entities as they stand now, for one flush of the journal (saver.ts). */
  batch(changes: PendingChanges): JournalBatch {
    const webhooks = this.webhooks.data;
    const batch: Required<JournalBatch> = { recordings: [], subscriptions: [], removedSubscriptions: [], deliveries: [], idempotency: [] };
    for (const id of changes.recording) {
      const rec = this.recordings.find(id);
      if (rec) batch.recordings.push(storedRecording(rec));
    }
    for (const id of changes.subscription) {
      const sub = webhooks.subscriptions.get(id);
      if (sub) batch.subscriptions.push(sub);
      else batch.removedSubscriptions.push(id);
    }
    for (const id of changes.delivery) {
      const d = webhooks.deliveries.get(id);
      if (d) batch.deliveries.push(d);
    }
    for (const key of changes.idempotency) {
      const entry = webhooks.idempotency.get(key);
      if (entry?.state === 'done') batch.idempotency.push({ key, at: entry.at, status: entry.status, body: entry.body });
    }
    return batch;
  }

  async close(): Promise<void> {
    await this.webhooks.stop();
    await this.incident?.receivers.stop();
    await this.saver?.close();
  }
}

function storedWebhooks(stored: StoredState | null): WebhookStore {
  if (!stored) return new WebhookStore();
  return new WebhookStore({
    subscriptions: stored.subscriptions.map(restoredSubscription),
    deliveries: stored.deliveries.map(restoredDelivery),
    idempotency: stored.idempotency.map((e): [string, IdempotencyEntry] => [
      e.key,
      { at: e.at, state: 'done', status: e.status, body: e.body },
    ]),
  });
}
