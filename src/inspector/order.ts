// The order of the inspector's list, one rule for its API (GET /api/deliveries) and its page
// (./page/app.ts), so that a script and the page see the deliveries in the same order: newest
// first by `at` (listen: when it arrived; sandbox: its latest attempt), then the higher id.
import type { DeliverySummary } from './model.js';

/** Newest first by `at` (ISO 8601, compared as text: one format); ties by id, the higher first (numbers as numbers). */
export function newestFirst(a: Pick<DeliverySummary, 'at' | 'id'>, b: Pick<DeliverySummary, 'at' | 'id'>): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  const numeric = /^[0-9]+$/.test(a.id) && /^[0-9]+$/.test(b.id);
  if (numeric) return Number(b.id) - Number(a.id);
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
