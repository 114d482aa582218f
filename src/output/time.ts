// Time as people read it in a table, and `--updated-since` values as people type them.
import { UsageError } from '../core/errors.js';
import { sanitize } from '../core/sanitize.js';
import { INSTANT, parseIsoTime, TYPED_TIME } from '../shared/iso-time.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      // h23, not hour12: false, which some ICU versions print as "24:05" after midnight.
      hourCycle: 'h23',
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * `2026-11-22 14:05` in local time (the process's TZ, or `timeZone` when given) for tables.
 * null/undefined give an empty cell; a value that is not a timestamp is shown as sent, sanitised.
 */
export function formatLocalTime(iso: string | null | undefined, o: { timeZone?: string } = {}): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const ms = parseIsoTime(iso, INSTANT);
  if (ms === null) return sanitize(iso);
  const parts: Record<string, string> = {};
  for (const part of formatter(o.timeZone).formatToParts(ms)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * An ISO 8601 timestamp, or a duration back from `now` (`90s`, `15m`, `24h`, `7d`), as the ISO
 * 8601 UTC string the API takes. A date, or a date-time without an offset, is local time.
 */
export function parseWhen(input: string, now: number | Date, flag = '--updated-since'): string {
  const text = input.trim().toUpperCase();
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const duration = /^(\d{1,9})([SMHD])$/.exec(text);
  if (duration) {
    const amount = Number(duration[1]);
    const unit = duration[2]?.toLowerCase() as keyof typeof UNIT_MS;
    const since = new Date(nowMs - amount * UNIT_MS[unit]);
    if (!Number.isNaN(since.getTime())) return since.toISOString();
  }
  if (!duration) {
    // A date, or a date-time without an offset, is read as local time: the day as the person
    // typing it means it.
    const ms = parseIsoTime(text, TYPED_TIME);
    if (ms !== null) return new Date(ms).toISOString();
  }
  throw new UsageError(
    `invalid ${flag} value "${sanitize(input)}": expected an ISO 8601 timestamp (2026-11-22T14:05:00Z) or a duration back from now (90s, 15m, 24h, 7d)`,
  );
}

/**
 * How long ago, compactly, for table cells: `45s ago`, `12m ago`, `3h ago`, `5d ago`; older
 * than 30 days (or in the future) the local date. Exact times stay in `-o json`.
 */
export function formatAge(iso: string | null | undefined, now: number): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const ms = parseIsoTime(iso, INSTANT);
  if (ms === null) return sanitize(iso);
  const seconds = Math.floor((now - ms) / 1000);
  if (seconds < -60 || seconds >= 30 * 86_400) return formatLocalTime(iso).slice(0, 10);
  if (seconds < 60) return `${Math.max(0, seconds)}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/**
 * How long until a time, compactly, for table cells (`sync status`'s NEXT TRY): `in 3m`, `in 2h`,
 * `in 4d`; `due` once it has passed. Minutes are rounded up, so a wait never reads shorter than
 * it is. Exact times stay in `-o json`.
 */
export function formatIn(iso: string | null | undefined, now: number): string {
  if (iso === null || iso === undefined || iso === '') return '';
  const ms = parseIsoTime(iso, INSTANT);
  if (ms === null) return sanitize(iso);
  const seconds = (ms - now) / 1000;
  if (seconds <= 0) return 'due';
  if (seconds < 3600) return `in ${Math.ceil(seconds / 60)}m`;
  if (seconds < 86_400) return `in ${Math.floor(seconds / 3600)}h`;
  return `in ${Math.floor(seconds / 86_400)}d`;
}
