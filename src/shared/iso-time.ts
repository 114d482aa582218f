// ISO 8601 times, read the same way by the CLI's flags, its output, the schemas and the sandbox.
// Date.parse is not used: V8 takes "May 5" or "1" and guesses, and turns 2025-02-30 into
// 2 March. Every field is range-checked here, the day against its month.

/** How a time may be written: what the reader can do without a zone, and whether a date alone will do. */
export interface IsoRules {
  /**
   * `required`: a date-time must carry `Z` or an offset, and a date alone is UTC midnight (the
   * API's instants). `local`: a missing zone means the local time of this process (what a person
   * types at a prompt).
   */
  zone: 'required' | 'local';
  /** A date with no time (`2026-11-22`): midnight, in UTC or local time as `zone` says. */
  dateOnly: boolean;
}

/** The API's instants: a date-time with a zone, or a date alone (midnight UTC). */
export const INSTANT: IsoRules = { zone: 'required', dateOnly: true };

/**
 * A time a person types in a flag (--updated-since, --filed-at): a date alone is local
 * midnight, a time without a zone is local time: the day as the person typing it means it.
 */
export const TYPED_TIME: IsoRules = { zone: 'local', dateOnly: true };

// date, then optionally T (or a space) and hh:mm[:ss[.fraction]] and a zone; the fraction may
// use a comma (ISO 8601 allows both) and has at most nanosecond digits.
const SHAPE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * The instant `text` names, in milliseconds since the epoch, or null when it is not an ISO 8601
 * time these rules accept or names a day, hour or offset that does not exist.
 */
export function parseIsoTime(text: string, rules: IsoRules): number | null {
  const m = SHAPE.exec(text);
  if (m === null) return null;
  const [, ys, mos, ds, hs, mis, ss, frac, z, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;

  const hasTime = hs !== undefined;
  if (!hasTime && !rules.dateOnly) return null;
  const hour = hasTime ? Number(hs) : 0;
  const minute = hasTime ? Number(mis) : 0;
  const second = ss === undefined ? 0 : Number(ss);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));

  const zoned = z !== undefined || sign !== undefined;
  if (hasTime && !zoned && rules.zone === 'required') return null;
  const local = !zoned && rules.zone === 'local';
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const oh = Number(ohs);
    const om = Number(oms);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }

  // setFullYear, not the Date constructor: the constructor reads years 0-99 as 1900-1999.
  const d = new Date(0);
  if (local) {
    d.setFullYear(year, month - 1, day);
    d.setHours(hour, minute, second, millis);
    return d.getTime();
  }
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, millis);
  return d.getTime() - offsetMinutes * 60_000;
}

/** True when `text` is an instant as the API writes and takes it. */
export function isIsoInstant(text: string): boolean {
  return parseIsoTime(text, INSTANT) !== null;
}
