// Checks of flag values that commander cannot make, with a UsageError (exit 2) that says what
// is expected. Numbers are read by src/core/flags.ts. Command files call these before anything is sent.
import { UsageError } from '../core/errors.js';
import { parseIsoTime } from '../shared/iso-time.js';

export function requireFlag(name: string, raw: unknown, why?: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new UsageError(`${name} is required${why ? ` ${why}` : ''}`);
  return raw;
}

export function isoFlag(name: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw);
  // A date and a time with its zone: the instant sent is the one typed, not a guess.
  if (parseIsoTime(text, { zone: 'required', dateOnly: false }) === null) {
    throw new UsageError(`invalid ${name} ${JSON.stringify(text)}: expected an ISO 8601 time such as 2026-11-22T09:30:00Z`);
  }
  return text;
}
