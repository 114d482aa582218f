// Receiver faults (sandbox.md, In an integrator's own tests): deliveries that misbehave the way
// api.md says a receiver must tolerate or refuse — sent twice, signed with a timestamp older
// than the 300 s tolerance, or signed with a secret that is not the subscription's.
import { newWebhookSecret } from '../shared/ids.js';
import type { Rng } from './random.js';

export interface DeliveryFaultRates {
  /** 0 to 1: the fraction of attempts sent twice, the same bytes and headers each time. */
  duplicate: number;
  /** 0 to 1: the fraction of attempts signed with a timestamp 301 to 900 s in the past. */
  stale: number;
  /** 0 to 1: the fraction of attempts signed with another secret. */
  badSignature: number;
}

/** What one attempt gets. */
export interface DeliveryMischief {
  duplicate: boolean;
  /** Seconds taken off the signing timestamp; 0 for none. */
  ageSeconds: number;
  /** The secret to sign with instead of the subscription's; null for the right one. */
  wrongSecret: string | null;
}

const NONE: DeliveryMischief = { duplicate: false, ageSeconds: 0, wrongSecret: null };

export class DeliveryFaults {
  private rates: DeliveryFaultRates = { duplicate: 0, stale: 0, badSignature: 0 };

  constructor(private readonly rng: Rng) {}

  get current(): DeliveryFaultRates {
    return { ...this.rates };
  }

  set(rates: DeliveryFaultRates): void {
    this.rates = { ...rates };
  }

  /** Drawn once per attempt; nothing is drawn while every rate is 0. */
  next(): DeliveryMischief {
    const { duplicate, stale, badSignature } = this.rates;
    if (duplicate <= 0 && stale <= 0 && badSignature <= 0) return NONE;
    return {
      duplicate: duplicate > 0 && this.rng.float() < duplicate,
      ageSeconds: stale > 0 && this.rng.float() < stale ? this.rng.int(301, 900) : 0,
      wrongSecret: badSignature > 0 && this.rng.float() < badSignature ? newWebhookSecret() : null,
    };
  }
}
