// What the inspector's server asks of the side it shows: rfs webhooks listen (./listen-source.ts)
// or rfs sandbox (./sandbox-source.ts).
import type { DeliveryDetail, DeliverySummary, Exchange, InspectorInfo } from './model.js';

/** A request the inspector cannot do: answered with this status and message. */
export class InspectorError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface InspectorSource {
  info(): InspectorInfo;
  /** Newest first. */
  list(): DeliverySummary[];
  detail(id: string): DeliveryDetail | undefined;
  /** The raw body, for the fixture download and the curl command. */
  body(id: string): Buffer | undefined;
  /**
   * Sends the delivery again (re-signed now with `resign`; with `edited`, that body in place of
   * its own, re-signed); the exchange it made. An InspectorError when it cannot.
   */
  replay(id: string, resign: boolean, edited?: Buffer): Promise<Exchange>;
  /** Where the curl command sends the delivery. */
  curlTarget(id: string): string | undefined;
  /** The sandbox's /api/v1 request log after `since` (its seq); undefined where there is none. */
  requests?(since: number): unknown[];
  /** Told of every new or changed delivery; answers the function that stops telling. */
  subscribe(listener: (summary: DeliverySummary) => void): () => void;
  close?(): Promise<void>;
}
