// Fault injection (sandbox.md, Faults): a fraction of /api/v1 requests fail on purpose, so that
// a client can prove it loses nothing and double-counts nothing.
import { Rng } from './random.js';

export const FAULT_KINDS = ['error-before', 'error-after', 'rate-limit', 'reset', 'delay'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultConfig {
  /** 0 to 1: the fraction of eligible requests that get a fault. */
  rate: number;
  kinds: FaultKind[];
  /** A fixed delay for `delay`; null for a random 1 to 3 s. */
  delayMs: number | null;
  /** Only paths containing this text are eligible (e.g. "/filings"); null for all. */
  match: string | null;
}

export function faultConfig(rate: number): FaultConfig {
  return { rate, kinds: [...FAULT_KINDS], delayMs: null, match: null };
}

export class Faults {
  readonly counts: Record<FaultKind, number> = { 'error-before': 0, 'error-after': 0, 'rate-limit': 0, reset: 0, delay: 0 };

  constructor(
    private config: FaultConfig,
    private readonly rng: Rng,
  ) {}

  get current(): FaultConfig {
    return { ...this.config, kinds: [...this.config.kinds] };
  }

  set(config: FaultConfig): void {
    this.config = config;
  }

  /** The fault for this request, if any; counted when chosen. */
  pick(path: string): FaultKind | null {
    const { rate, kinds, match } = this.config;
    if (rate <= 0 || kinds.length === 0) return null;
    if (match !== null && !path.includes(match)) return null;
    if (this.rng.float() >= rate) return null;
    const kind = this.rng.pick(kinds);
    this.counts[kind]++;
    return kind;
  }

  delayMs(): number {
    return this.config.delayMs ?? this.rng.int(1000, 3000);
  }
}
