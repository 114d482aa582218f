// One example per operation of the OpenAPI document (openapi.ts), typed by the schemas the
// answers are typed by (contract.ts), so an example that the document would refuse does not
// compile; test/sandbox/openapi.test.ts also validates each against its schema.
import type { FilingRequest, WebhookCreateRequest } from '../shared/schemas.js';
import type * as C from './contract.js';
import type { z } from 'zod/mini';
import { type ApiProblemCode, PROBLEM_BASE, problemTitle } from './problem.js';
import { problemCodes } from './contract.js';

const RECORDING = 'rec_8fKq2LmN4pR7sT1v';
const WEBHOOK = 'wh_3Jx9Qa7Lp2Vn5Rt8Kd4M';
const DELIVERY = 'dlv_Z4n8Hq2Wc6Yt1Bm5Xr9P';

const author: C.Person = { id: 'usr_Ab12Cd34Ef56', name: 'Amira Okafor', email: 'amira.okafor@northgate-legal.example' };
const client: C.Reference = { id: 'cli_Gh78Ij90Kl12', name: 'Blackwater Estates', referenceNumber: 'C-48213' };
const matter: C.Reference = { id: 'mat_Mn34Op56Qr78', name: 'Lease renewal', referenceNumber: 'M-2024-0193' };

const note: C.DetailBlock = {
  id: 'blk_s9T8u7V6w5X4y3Z2',
  templateName: 'Meeting summary',
  templateId: 'tpl_c7e20ba3fa8a',
  schemaVersion: 1,
  contentRevision: 2,
  sortOrder: 1,
  createdAt: '2025-06-30T09:14:08.000Z',
  contentText: 'Summary\n\nThe client agreed to the revised terms.',
  contentStatus: 'available',
};

const { contentText: _text, contentStatus: _status, ...noteMeta } = note;

const listItem: C.RecordingListItem = {
  id: RECORDING,
  title: 'Client meeting: Blackwater Estates - Lease renewal',
  status: 'COMPLETED',
  priority: 'MEDIUM',
  audioDuration: 659,
  audioSize: 10_548_772,
  notes: [noteMeta],
  documents: [],
  author,
  client,
  matter,
  createdAt: '2025-06-30T09:00:00.000Z',
  updatedAt: '2025-06-30T09:40:00.000Z',
  lastSyncedAt: null,
  syncCount: 0,
};

const recordingList: z.infer<typeof C.RecordingList> = {
  data: [listItem],
  meta: { count: 1, limit: 50, hasMore: true, nextCursor: 'eyJjIjoxNzUxMjc0MDAwMDAwfQ.sig' },
};

const recording: C.RecordingResponse = {
  data: {
    ...listItem,
    notes: [
      {
        ...note,
        contentJson: {
          type: 'doc',
          content: [
            { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Summary' }] },
            { type: 'paragraph', content: [{ type: 'text', text: 'The client agreed to the revised terms.' }] },
          ],
        },
      },
    ],
    documents: [],
    transcript: 'Amira Okafor: Thank you for coming in.\n\nJames Reed: Happy to go through the lease.',
  },
};

const filingRequest: FilingRequest = {
  provider: 'clio',
  externalId: 'CLI-204811',
  externalUrl: 'https://app.clio.example/documents/204811',
  metadata: { matterNumber: 'M-2024-0193' },
};

const filing: C.FilingResponse = {
  data: {
    id: RECORDING,
    lastSyncedAt: '2025-06-30T10:02:11.000Z',
    syncCount: 1,
    syncMetadata: { ...filingRequest, filedAt: '2025-06-30T10:02:11.000Z' },
  },
  meta: { replayed: false },
};

const webhookRequest: WebhookCreateRequest = { url: 'https://hooks.example.com/rfs', events: ['recording.completed'] };
const subscription: C.WebhookSubscription = { id: WEBHOOK, ...webhookRequest, createdAt: '2025-06-30T08:00:00.000Z' };
const webhookCreated: C.WebhookCreateResponse = { data: { ...subscription, secret: 'whsec_q2W3e4R5t6Y7u8I9o0P1a2S3d4F5g6H7' } };
const webhookList: z.infer<typeof C.WebhookList> = {
  data: [subscription],
  meta: { count: 1, limit: 50, hasMore: false, nextCursor: null },
};

const delivery: C.Delivery = {
  id: DELIVERY,
  subscriptionId: WEBHOOK,
  event: 'recording.completed',
  recordingId: RECORDING,
  status: 'FAILED',
  attempts: 5,
  lastAttemptAt: '2025-06-30T09:45:12.000Z',
  lastResponseStatus: 503,
  lastError: 'the receiver answered 503',
  createdAt: '2025-06-30T09:40:00.000Z',
};
const deliveryList: z.infer<typeof C.DeliveryList> = { data: [delivery], meta: { count: 1, limit: 50 } };
const replay: z.infer<typeof C.ReplayResponse> = {
  data: { ...delivery, status: 'PENDING', lastAttemptAt: delivery.lastAttemptAt },
};

const payload: z.infer<typeof C.WebhookPayload> = {
  id: DELIVERY,
  event: 'recording.completed',
  data: {
    id: RECORDING,
    title: listItem.title,
    status: 'COMPLETED',
    priority: 'MEDIUM',
    author,
    client,
    matter,
    createdAt: listItem.createdAt,
    updatedAt: listItem.updatedAt,
    lastSyncedAt: null,
    syncCount: 0,
    apiUrl: `/api/v1/recordings/${RECORDING}`,
  },
};

export const EXAMPLES = {
  recordingList,
  recording,
  filingRequest,
  filing,
  webhookRequest,
  webhookCreated,
  webhookList,
  deliveryList,
  replay,
  payload,
};

/** A problem answer of this status, with its first code. */
export function problemExample(status: number): z.infer<ReturnType<typeof C.Problem>> {
  const code = problemCodes(status)[0] as ApiProblemCode;
  return {
    type: `${PROBLEM_BASE}/${code.toLowerCase().replace(/_/g, '-')}`,
    title: problemTitle(code),
    status,
    code,
    requestId: 'req_5fT2kW9qL3xN8bV1',
  };
}
