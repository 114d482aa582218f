// Fault injection (sandbox.md, Faults): a fraction of /api/v1 requests fail on purpose, so that
// a client can prove it loses nothing and double-counts nothing. A script (In an integrator's
// own tests) makes it deterministic: the next matching requests get the faults it lists,
// before any random rate applies.
import type { Rng } from './random.js';

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

/** One step of a script: the next `times` requests that match get `kind`. */
export interface ScriptedFault {
  /** Text the request's path must contain (e.g. "/filings"), as `match` above; null for any path. */
  match: string | null;
  /** GET, POST or DELETE; null for any method. */
  method: string | null;
  kind: FaultKind;
  times: number;
  /** For `delay`: how long; null for a random 1 to 3 s. */
  delayMs: number | null;
}

export interface PickedFault {
  kind: FaultKind;
  /** For `delay`; 0 otherwise. */
  delayMs: number;
}

export function faultConfig(rate: number): FaultConfig {
  return { rate, kinds: [...FAULT_KINDS], delayMs: null, match: null };
}

export class Faults {
  readonly counts: Record<FaultKind, number> = { 'error-before': 0, 'error-after': 0, 'rate-limit': 0, reset: 0, delay: 0 };
  private script: ScriptedFault[] = [];

  constructor(
    private config: FaultConfig,
    private readonly rng: Rng,
  ) {}

  get current(): FaultConfig {
    return { ...this.config, kinds: [...this.config.kinds] };
  }

  /** What is left of the script, in order. */
  get remainingScript(): ScriptedFault[] {
    return this.script.map((step) => ({ ...step }));
  }

  set(config: FaultConfig): void {
    this.config = config;
  }

  setScript(script: ScriptedFault[]): void {
    this.script = script.filter((step) => step.times > 0).map((step) => ({ ...step }));
  }

  /**
   * The fault for this request, if any; counted when chosen. The first step of the script that
   * matches is used up one time; only a request that no step matches meets the random rate.
   */
  pick(method: string, path: string): PickedFault | null {
    const index = this.script.findIndex(
      (step) => (step.method === null || step.method === method) && (step.match === null || path.includes(step.match)),
    );
    if (index !== -1) {
      const step = this.script[index] as ScriptedFault;
      if (--step.times === 0) this.script.splice(index, 1);
      this.counts[step.kind]++;
      return { kind: step.kind, delayMs: step.kind === 'delay' ? (step.delayMs ?? this.randomDelayMs()) : 0 };
    }
    const { rate, kinds, match } = this.config;
    if (rate <= 0 || kinds.length === 0) return null;
    if (match !== null && !path.includes(match)) return null;
    if (this.rng.float() >= rate) return null;
    const kind = this.rng.pick(kinds);
    this.counts[kind]++;
    // The delay is drawn after the kind, and only for a delay, as the random sequence always was.
    return { kind, delayMs: kind === 'delay' ? (this.config.delayMs ?? this.randomDelayMs()) : 0 };
  }

  private randomDelayMs(): number {
    return this.rng.int(1000, 3000);
  }
}
