// Turning raw flag values into typed ones, with a UsageError (exit 2) that names the allowed
// values. Command files call these before anything is sent.
import { UsageError } from '../core/errors.js';
import { parseIsoTime } from '../shared/iso-time.js';

export function intFlag(name: string, raw: unknown, range: { min: number; max: number }): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    const upper = range.max === Number.MAX_SAFE_INTEGER ? 'or more' : `to ${range.max}`;
    throw new UsageError(`invalid ${name} ${JSON.stringify(String(raw))}: expected a whole number from ${range.min} ${upper}`);
  }
  return value;
}

export function stringFlag(raw: unknown): string | undefined {
  return typeof raw === 'string' ? raw : undefined;
}

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

export function rejectTogether(flags: Record<string, unknown>, message: string): void {
  const given = Object.entries(flags).filter(([, v]) => v !== undefined && v !== false);
  if (given.length > 1) throw new UsageError(`${given.map(([k]) => k).join(' and ')} cannot be used together: ${message}`);
}
