// The enumerated words of api.md, without zod, so that the command tree (and `--help`) can
// name the allowed values without loading the schema library.
export const RECORDING_STATUSES = ['DRAFT', 'PENDING', 'CLAIMED', 'REVIEW_PENDING', 'COMPLETED', 'ARCHIVED'] as const;
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const SYNC_STATES = ['unsynced', 'synced', 'all'] as const;
export const INCLUDES = ['content', 'contentJson'] as const;
export const WEBHOOK_EVENTS = ['recording.completed'] as const;
export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export { API_KEY_PREFIX } from '../core/redact.js';

/** cli.md, verify-signature: a signature's timestamp may differ from now by this much, both ways. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
