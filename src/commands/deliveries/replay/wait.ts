// `replay --wait` (cli.md, deliveries): after replaying, the deliveries lists are polled until
// every replayed delivery's outcome is known, or the timeout passes. What a list proves is
// api/delivery-evidence.ts's to say: SUCCEEDED as soon as a row shows it so; FAILED only when a
// row shows it failed with an attempt after the replay; anything else is not known yet, and at
// the timeout "not known" with why — never FAILED, never SUCCEEDED by absence.
//
// Each poll lists SUCCEEDED, then (for what that left open) FAILED, of each replayed delivery's
// subscription (its own lists reach further than the workspace's), through a client within the
// budget watch keeps (every attempt counted, retries too), so a long wait costs the workspace
// no more than watch does.
import { DeliveryFacts, type ListAnswer, listAnswer, type ReplayOutcome, replayOutcome } from '../../../api/delivery-evidence.js';
import type { Clock } from '../../../core/clock.js';
import { CancelError } from '../../../core/errors.js';
import { passingPollFailure, startDeadline } from '../poll-limits.js';
import type { Delivery } from '../../../shared/schemas.js';

/** The least time between the start of two polls; the budget may make it longer. */
export const POLL_INTERVAL_MS = 2000;

/** A delivery whose replay was accepted. */
export interface Replayed {
  id: string;
  /** Its subscription, when a row or the replay's answer named it; '' otherwise. */
  subscriptionId: string;
  /** Its last attempt before the replay (ms), or when the replay was sent: a FAILED attempt must be later. */
  before: number;
}

export type Outcome = { id: string } & ReplayOutcome;

export interface WaitResult {
  outcomes: Outcome[];
  /** True when the timeout passed with some outcomes not known. */
  timedOut: boolean;
  waitedMs: number;
}

export interface WaitDeps {
  /** `signal` aborts at the timeout (and with the run's own signal): a request in flight stops there too. */
  list: (status: 'SUCCEEDED' | 'FAILED', subscriptionId: string | undefined, signal: AbortSignal) => Promise<Delivery[]>;
  clock: Clock;
  signal: AbortSignal;
  /** How long from the start of a poll of `requests` lists to the next, to keep to the budget. */
  spacing: (requests: number) => number;
  /** Told after each poll how many outcomes are not known yet. */
  onPoll?: (left: number) => void;
}

export async function waitForOutcomes(replayed: readonly Replayed[], timeoutMs: number, deps: WaitDeps): Promise<WaitResult> {
  const { clock, signal } = deps;
  const started = clock.now();
  const deadline = started + timeoutMs;
  const limit = startDeadline(clock, deadline);
  const requests = AbortSignal.any([signal, limit.signal]);
  const facts = new DeliveryFacts();
  const known = new Map<string, Outcome>();
  let answers: ListAnswer[] = [];
  // The answers of the last poll that got all of its lists, and why the last poll failed, if it did.
  let complete: ListAnswer[] | undefined;
  let failed: string | undefined;
  const judge = (r: Replayed): Outcome => ({ id: r.id, ...replayOutcome(facts, answers, r.id, r.before, r.subscriptionId) });
  const open = (): Replayed[] => replayed.filter((r) => !known.has(r.id));

  try {
    for (;;) {
      const pollStarted = clock.now();
      answers = [];
      let sent = 0;
      try {
        for (const sub of subscriptionsOf(open())) {
          for (const status of ['SUCCEEDED', 'FAILED'] as const) {
            const waiting = open().filter((r) => r.subscriptionId === (sub ?? ''));
            if (waiting.length === 0) break;
            const answer = listAnswer(status, sub, await deps.list(status, sub, requests));
            sent += 1;
            answers.push(answer);
            facts.add(answer);
            for (const r of waiting) {
              const outcome = judge(r);
              if (outcome.known) known.set(r.id, outcome);
            }
          }
        }
        complete = answers;
        failed = undefined;
      } catch (error) {
        if (signal.aborted) throw new CancelError('interrupted while waiting for the replayed deliveries');
        // At the timeout, or a failure that passes (429, 5xx, the network): the outcomes so far are
        // kept, and a poll that got only some of its lists proves nothing about the others.
        if (!limit.passed() && !passingPollFailure(error)) throw error;
        answers = complete ?? [];
        failed = passingPollFailure(error) ? error.message : `no answer within the ${Math.round(timeoutMs / 1000)} s of --wait-timeout`;
        // Counted as a request at least, so that the next poll waits as long as the budget asks.
        sent = Math.max(sent, 1);
      }
      deps.onPoll?.(open().length);
      if (open().length === 0) return finish(false);
      const now = clock.now();
      if (limit.passed()) return finish(true);
      const next = pollStarted + Math.max(POLL_INTERVAL_MS, deps.spacing(sent));
      try {
        await clock.sleep(Math.max(0, Math.min(next, deadline) - now), requests);
      } catch (error) {
        if (signal.aborted) throw new CancelError('interrupted while waiting for the replayed deliveries');
        if (!limit.passed()) throw error;
      }
    }
  } finally {
    limit.dispose();
  }

  function finish(timedOut: boolean): WaitResult {
    return { outcomes: replayed.map((r) => known.get(r.id) ?? unknown(r)), timedOut, waitedMs: clock.now() - started };
  }

  /** Not known: why, from the last poll that got its lists, and the failure of the polls since. */
  function unknown(r: Replayed): Outcome {
    const judged = judge(r);
    if (failed === undefined || judged.known) return judged;
    if (complete === undefined) return { id: r.id, known: false, why: `no list answered since the replay: ${failed}` };
    return { ...judged, why: `${judged.why}; the lists did not answer since: ${failed}` };
  }
}

/** The subscriptions to list, in code-point order; undefined (the workspace's lists) for deliveries of no known one. */
function subscriptionsOf(replayed: readonly Replayed[]): (string | undefined)[] {
  const ids = [...new Set(replayed.map((r) => r.subscriptionId))].sort();
  return ids.map((id) => (id === '' ? undefined : id));
}
