// The sandbox's own data types: what the state module holds, compactly. Everything a client
// sees is derived from these in views.ts.
import type { Priority, RecordingStatus, SyncMetadata, WEBHOOK_EVENTS } from '../shared/schemas.js';
import type { BlockHeader } from './content.js';

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WORKSPACES = ['main', 'other', 'starter'] as const;
export type WorkspaceId = (typeof WORKSPACES)[number];

export const SCOPES = ['read:recordings', 'write:recordings', 'manage:webhooks'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Workspace {
  id: WorkspaceId;
  plan: 'Pro' | 'Enterprise' | 'Starter';
  /** Pro or Enterprise with beta access: anything else gets 403 SUBSCRIPTION_REQUIRED. */
  eligible: boolean;
}

export const WORKSPACE_TABLE: Record<WorkspaceId, Workspace> = {
  main: { id: 'main', plan: 'Pro', eligible: true },
  other: { id: 'other', plan: 'Enterprise', eligible: true },
  starter: { id: 'starter', plan: 'Starter', eligible: false },
};

/** What a filing answered the first time; a repeated (provider, externalId) answers it again. */
export interface FilingData {
  id: string;
  lastSyncedAt: string;
  syncCount: number;
  syncMetadata: SyncMetadata;
}

export interface Filing {
  provider: string;
  externalId: string;
  data: FilingData;
}

/**
 * One recording, kept small: 100 000 of them must fit well under 300 MB. Transcript and block
 * content are not stored; they are derived from `contentSeed` each time they are served.
 */
export interface Recording {
  id: string;
  workspace: WorkspaceId;
  /** Position in the generated set, or -1 for a recording made through the control API. */
  origin: number;
  contentSeed: number;
  title: string;
  status: RecordingStatus;
  priority: Priority;
  authorIndex: number;
  /** Index into the workspace's clients, or -1 for none. */
  clientIndex: number;
  /** Index into the client's matters, or -1 for none. */
  matterIndex: number;
  audioDuration: number;
  audioSize: number;
  createdAt: number;
  updatedAt: number;
  lastSyncedAt: number | null;
  syncCount: number;
  filings: Filing[] | null;
  /** What a --fixtures list gave that the seed would otherwise make (fixtures.ts); absent for the rest. */
  given?: GivenContent;
  /** Bumped on every change, so cached serialisations know they are stale. */
  version: number;
  /** Differs from what the generator makes: persistence writes only these. */
  changed: boolean;
}

export interface GivenRef {
  id: string;
  name: string;
  referenceNumber: string;
}

/** A note or document block of a --fixtures list, complete: what views.ts serves as is. */
export interface GivenBlock extends BlockHeader {
  /** null: the block's content is unavailable (contentStatus unavailable, no contentJson). */
  contentText: string | null;
  contentJson: Record<string, unknown> | null;
}

/** A recording's parties and content as a fixture gave them; a field left out is generated. */
export interface GivenContent {
  author?: { id: string; name: string; email: string };
  client?: GivenRef | null;
  matter?: GivenRef | null;
  transcript?: string;
  notes?: GivenBlock[];
  documents?: GivenBlock[];
}

export interface Subscription {
  id: string;
  workspace: WorkspaceId;
  url: string;
  events: WebhookEvent[];
  secret: string;
  createdAt: number;
}

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface DeliveryAttempt {
  attempt: number;
  at: number;
  url: string;
  /** The address that was checked and connected to; null when the URL was refused first. */
  address: string | null;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface Delivery {
  id: string;
  workspace: WorkspaceId;
  subscriptionId: string;
  event: WebhookEvent;
  recordingId: string;
  status: DeliveryStatus;
  /** The payload, fixed when the event happened: every attempt and replay sends these bytes. */
  body: string;
  attempts: number;
  /** Attempts made since the delivery was created or last replayed. */
  roundAttempts: number;
  lastAttemptAt: number | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: number;
  log: DeliveryAttempt[];
}

/** One entity that changed, for --data to write (saver.ts): its kind and id (an idempotency key's slot). */
export interface Change {
  kind: 'recording' | 'subscription' | 'delivery' | 'idempotency';
  id: string;
}
