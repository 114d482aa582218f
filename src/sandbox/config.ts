// The sandbox's options, their defaults and allowed ranges. The command checks flags against
// the same ranges, so its messages and the programmatic API agree.
import { type NumberRule, withinRule } from '../core/flags.js';
import { WORKSPACE_REQUESTS_PER_MINUTE } from '../shared/api-limits.js';
import type { FixtureRecording } from './fixtures.js';
import type { ExportedState } from './persistence.js';
import type { Resolver } from './url-guard.js';

/**
 * What each --scenario starts with (sandbox.md, Rehearsing an incident), in lines that fit the
 * help's 80 columns: shown by --help; the startSandbox option takes the same names.
 */
export const SCENARIOS = {
  incident: [
    'three subscriptions to receivers the sandbox runs itself: healthy (2xx),',
    'failing (500s, 503s with Retry-After, timeouts, refused connections) and',
    'deleted (its subscription deleted after its deliveries failed); 300+',
    'deliveries whose attempts span the last two hours: SUCCEEDED, FAILED, and',
    'PENDING ones still retrying. POST /_sandbox/receivers/failing {"mode":"ok"}',
    'makes the failing receiver recover.',
  ],
} as const;
export type ScenarioName = keyof typeof SCENARIOS;
export const SCENARIO_NAMES = Object.keys(SCENARIOS) as ScenarioName[];

export interface SandboxOptions {
  host?: string;
  port?: number;
  seed?: number | string;
  recordings?: number;
  dataFile?: string;
  /**
   * Where the state starts: a file (a state of the --data format, or a JSON list of
   * recordings), or such a value itself. A data file that exists wins: it continues from them.
   * A state without its seed (as GET /_sandbox/state exports it) takes `seed` (or a random one).
   */
  fixtures?: string | ExportedState | FixtureRecording[];
  rateLimit?: number;
  rateWindowSeconds?: number;
  faults?: number;
  deliveryAttempts?: number;
  deliveryBackoffMs?: number;
  allowPrivateWebhooks?: boolean;
  /**
   * Starts with a prepared state (SCENARIOS) on top of the generated one; not with `dataFile` or
   * `fixtures`, which bring their own.
   */
  scenario?: ScenarioName;
  /** One line per delivery attempt and other events worth a note. */
  log?: (line: string) => void;
  /** Injected DNS for tests; default: dns.lookup with all addresses. */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** The clock, for tests (cursor expiry, idempotency memory, rate limiting); default Date.now. */
  now?: () => number;
  /** How long a cursor lives; default one hour. */
  cursorTtlMs?: number;
  /** How long a delivery attempt waits for an answer; default 10 s. */
  deliveryTimeoutMs?: number;
}

export const RANGES = {
  port: { min: 0, max: 65535, integer: true },
  recordings: { min: 0, max: 1_000_000, integer: true },
  rateLimit: { min: 0, max: 1_000_000, integer: true },
  rateWindowSeconds: { min: 1, max: 86_400, integer: true },
  faults: { min: 0, max: 1, integer: false },
  deliveryAttempts: { min: 1, max: 20, integer: true },
  deliveryBackoffMs: { min: 0, max: 3_600_000, integer: true },
  cursorTtlMs: { min: 1, max: 7 * 86_400_000, integer: true },
  deliveryTimeoutMs: { min: 1, max: 600_000, integer: true },
} satisfies Record<string, Required<NumberRule>>;
export type RangedOption = keyof typeof RANGES;

export function describeRange(name: RangedOption): string {
  const { min, max, integer } = RANGES[name];
  return `${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
}

export function inRange(name: RangedOption, value: number): boolean {
  return withinRule(value, RANGES[name]);
}

export interface SandboxConfig {
  host: string;
  port: number;
  /** As given; null when the seed should come from the data file or be random. */
  seed: string | null;
  recordings: number;
  dataFile: string | null;
  fixtures: string | ExportedState | FixtureRecording[] | null;
  rateLimit: number;
  rateWindowSeconds: number;
  faults: number;
  deliveryAttempts: number;
  deliveryBackoffMs: number;
  allowPrivateWebhooks: boolean;
  scenario: ScenarioName | null;
  log: (line: string) => void;
  resolveHost: Resolver | null;
  now: () => number;
  cursorTtlMs: number;
  deliveryTimeoutMs: number;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 4010,
  recordings: 25,
  rateLimit: WORKSPACE_REQUESTS_PER_MINUTE,
  rateWindowSeconds: 60,
  faults: 0,
  deliveryAttempts: 5,
  deliveryBackoffMs: 1000,
  cursorTtlMs: 60 * 60 * 1000, // sandbox.md: cursors expire after one hour
  deliveryTimeoutMs: 10_000, // sandbox.md: a 2xx answer within 10 s is success
} as const;

/** What each option must be, for callers without TypeScript (or with a cast): the type is checked before the value. */
const KINDS: Record<keyof SandboxOptions, string> = {
  host: 'string',
  port: 'number',
  seed: 'seed',
  recordings: 'number',
  dataFile: 'string',
  fixtures: 'fixtures',
  rateLimit: 'number',
  rateWindowSeconds: 'number',
  faults: 'number',
  deliveryAttempts: 'number',
  deliveryBackoffMs: 'number',
  allowPrivateWebhooks: 'boolean',
  scenario: 'scenario',
  log: 'function',
  resolveHost: 'function',
  now: 'function',
  cursorTtlMs: 'number',
  deliveryTimeoutMs: 'number',
};
const KIND_WORDS: Record<string, string> = {
  string: 'a non-empty string',
  number: 'a number',
  seed: 'a non-empty string or a finite number',
  fixtures: 'a file name, a state object or a list of recordings',
  boolean: 'true or false',
  scenario: `one of ${SCENARIO_NAMES.map((n) => JSON.stringify(n)).join(', ')}`,
  function: 'a function',
};

function shown(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : String(value);
}

function fits(kind: string, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value !== '';
    case 'seed':
      return (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value));
    case 'scenario':
      return typeof value === 'string' && Object.hasOwn(SCENARIOS, value);
    case 'fixtures':
      return (typeof value === 'string' && value !== '') || (typeof value === 'object' && value !== null);
    default:
      return typeof value === kind;
  }
}

/** A TypeError for an option of the wrong type or an unknown name; undefined means "the default". */
function checkKinds(options: SandboxOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`startSandbox takes an object of options (got ${shown(options)})`);
  for (const [name, value] of Object.entries(options)) {
    const kind = KINDS[name as keyof SandboxOptions] as string | undefined;
    if (kind === undefined) throw new TypeError(`unknown sandbox option ${name}; the options are ${Object.keys(KINDS).join(', ')}`);
    if (value !== undefined && !fits(kind, value))
      throw new TypeError(`sandbox option ${name} must be ${KIND_WORDS[kind]} (got ${shown(value)})`);
  }
}

/**
 * The clock as given, checked on every call: a time that is not a finite number of milliseconds
 * would make every answer that shows a time fail (new Date(NaN).toISOString() throws).
 */
function checkedClock(clock: () => number): () => number {
  return () => {
    const time = clock();
    if (typeof time !== 'number' || !Number.isFinite(time) || Math.abs(time) > 8.64e15)
      throw new RangeError(`sandbox option now must return milliseconds since 1970 as a finite number (got ${shown(time)})`);
    return time;
  };
}

export function resolveConfig(options: SandboxOptions): SandboxConfig {
  checkKinds(options);
  const now = options.now === undefined ? Date.now : checkedClock(options.now);
  // Asked once now, so a clock that cannot work is refused at start, not at the first request.
  now();
  const numbers = {
    port: options.port ?? DEFAULTS.port,
    recordings: options.recordings ?? DEFAULTS.recordings,
    rateLimit: options.rateLimit ?? DEFAULTS.rateLimit,
    rateWindowSeconds: options.rateWindowSeconds ?? DEFAULTS.rateWindowSeconds,
    faults: options.faults ?? DEFAULTS.faults,
    deliveryAttempts: options.deliveryAttempts ?? DEFAULTS.deliveryAttempts,
    deliveryBackoffMs: options.deliveryBackoffMs ?? DEFAULTS.deliveryBackoffMs,
    cursorTtlMs: options.cursorTtlMs ?? DEFAULTS.cursorTtlMs,
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? DEFAULTS.deliveryTimeoutMs,
  };
  for (const [name, value] of Object.entries(numbers) as [RangedOption, number][]) {
    if (!inRange(name, value)) throw new RangeError(`sandbox option ${name} must be ${describeRange(name)} (got ${value})`);
  }
  if (options.scenario !== undefined && (options.dataFile !== undefined || options.fixtures !== undefined))
    throw new RangeError('sandbox option scenario makes its own state: it cannot be combined with dataFile or fixtures');
  const seed = options.seed === undefined ? null : String(options.seed);
  if (seed === '') throw new RangeError('sandbox option seed must not be empty');
  return {
    ...numbers,
    host: options.host ?? DEFAULTS.host,
    seed,
    dataFile: options.dataFile ?? null,
    fixtures: options.fixtures ?? null,
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
    scenario: options.scenario ?? null,
    log: options.log ?? (() => undefined),
    resolveHost: options.resolveHost ?? null,
    now,
  };
}
