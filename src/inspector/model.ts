// What the inspector's JSON API answers (cli.md, webhooks listen --inspect; sandbox.md,
// Inspecting it): the page (./page/) is a client of exactly these shapes, and so is a script.
// Types only: the page's bundle imports them too.

export interface InspectorInfo {
  /** `listen`: what rfs webhooks listen received; `sandbox`: what the sandbox sent. */
  kind: 'listen' | 'sandbox';
  /** listen --forward-to, where replays go; null without it (listen) or for the sandbox. */
  forwardTo: string | null;
  /** Whether POST /api/deliveries/<id>/replay can do anything here. */
  canReplay: boolean;
  /** Whether a replay can be re-signed now (listen: the listener has the secret; the page never does). */
  canResign: boolean;
  /** Whether GET /api/requests answers (the sandbox's /api/v1 request log). */
  hasRequests: boolean;
  /** The most deliveries kept (listen: the newest 1,000, the oldest dropped first); null: no bound (the sandbox's own). The page keeps as many. */
  maxDeliveries: number | null;
}

/** One row of the list. */
export interface DeliverySummary {
  /** The inspector's id of the entry (listen: a number; sandbox: the delivery id). */
  id: string;
  /** When it arrived (listen) or was created (sandbox), ISO 8601. */
  at: string;
  event: string | null;
  deliveryId: string | null;
  recordingId: string | null;
  title: string | null;
  /**
   * Where the delivery was sent. sandbox: its subscription's URL (of its latest attempt when the
   * subscription was deleted); listen: the listener's URL with the path the delivery arrived at
   * (the subscription's path, which tells apart subscriptions sent to one listener), cut as the
   * list's texts are. Null when not known.
   */
  url: string | null;
  /** listen: valid, duplicate, stale, mismatch, malformed, missing; sandbox: the delivery's status. */
  verdict: string;
  /** listen: what the listener answered; sandbox: the receiver's last status (null: no answer). */
  status: number | null;
  /** listen: the forward target's answer to the delivery; sandbox: the receiver's answer to the latest attempt. Null when none was asked. */
  target: { status: number | null; durationMs: number; error: string | null } | null;
  /** The latest replay's answer, apart from the delivery's own (listen); null before any. */
  replay: { label: string; status: number | null; durationMs: number; error: string | null } | null;
  /** Whether this delivery can be replayed here: listen replays and re-signs only one that verified (cli.md, Trust). */
  replayable: boolean;
  /** Why it cannot be replayed, where the source can say more than the page does (sandbox: its subscription was deleted). */
  whyNotReplayable?: string;
  /**
   * Whether it can also be re-signed or edited: listen, one that verifies under the secret the
   * listener has now (one kept in the history from a run with another secret is replayed as
   * sent only: cli.md, Trust); the sandbox, never.
   */
  resignable: boolean;
  /**
   * Whether the delivery verified (listen: `valid`, `duplicate`; the sandbox's own deliveries
   * always). One that did not keeps no signature: it has no curl command (cli.md, Trust).
   */
  verified: boolean;
}

/** One request sent on (a forward, a replay, an attempt) and what came back. */
export interface Exchange {
  /** `forward`, `replay as sent`, `replay re-signed`, `attempt 2`. */
  label: string;
  at: string;
  url: string | null;
  /** `body`: the edited body that was sent (an edited replay); null when the delivery's own body went. */
  request: { headers: Record<string, string>; body: string | null };
  response: {
    status: number | null;
    headers: Record<string, string>;
    /** The first 64 KiB at most (null: the sender keeps no body). */
    body: string | null;
    bodyTruncated: boolean;
    error: string | null;
    durationMs: number;
  };
  /** Its bodies (the answer's, an edited body sent) were dropped to keep the inspector within its memory bound, the oldest first. */
  dropped: boolean;
}

export interface DeliveryDetail extends DeliverySummary {
  /** Why the verdict (listen), or the delivery's last error (sandbox). */
  explanation: string;
  /** The delivery as it arrived (listen) or as it is sent (sandbox): headers and the raw body. */
  request: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body: string;
    /** The body's size as it arrived; `body` holds only its first part when `bodyTruncated` (a refused body is cut). */
    bodyBytes: number;
    bodyTruncated: boolean;
    /** The body was dropped to keep the inspector within its memory bound (`bodyBytes` says its size). */
    bodyDropped: boolean;
  };
  exchanges: Exchange[];
  /** How many of its oldest exchanges were dropped to keep the inspector within its memory bound. */
  exchangesDropped: number;
}
