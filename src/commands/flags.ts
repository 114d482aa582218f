// Checks of flag values that commander cannot make, with a UsageError (exit 2) that says what
// is expected. Numbers are read by src/core/flags.ts. Command files call these before anything is sent.
import { UsageError } from '../core/errors.js';
import { parseIsoTime, TYPED_TIME } from '../shared/iso-time.js';

export function requireFlag(name: string, raw: unknown, why?: string): string {
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`${name} is required${why ? ` ${why}` : ''}`);
  // Given, but only spaces: say so (as --from does), not that it is missing.
  if (raw.trim() === '') throw new UsageError(`${name} is blank: give it a value with more than spaces`);
  return raw;
}

export function isoFlag(name: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  // A date and a time with its zone: the instant sent is the one typed, as typed.
  if (parseIsoTime(text, { zone: 'required', dateOnly: false }) !== null) return text;
  // A date alone, or a time without a zone, is the local time of the person typing it, as
  // --updated-since reads it (TYPED_TIME): 2025-07-01 is local midnight, sent in UTC.
  const local = parseIsoTime(text, TYPED_TIME);
  if (local === null) {
    throw new UsageError(
      `invalid ${name} ${JSON.stringify(text)}: expected an ISO 8601 time such as 2026-11-22T09:30:00Z, or a date such as 2026-11-22 (local midnight)`,
    );
  }
  return new Date(local).toISOString();
}
