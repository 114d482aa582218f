// The one reader of numbers written on a command line: global flags, command flags and the
// sandbox's flags all go through readNumber, so "5", " 5 " and "5.0" mean the same everywhere.
import { UsageError } from './errors.js';

export interface NumberRule {
  min: number;
  /** Number.MAX_SAFE_INTEGER reads as "or more" in messages. */
  max: number;
  /** Whole numbers only (no fraction, no exponent). */
  integer?: boolean;
}

// Plain decimal notation only: Number() alone would take "0x10", "1e3" and "" (zero).
const WHOLE = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Whether a number (from a flag, or given to an API in code) is allowed by the rule. */
export function withinRule(value: number, rule: NumberRule): boolean {
  const fits = rule.integer ? Number.isSafeInteger(value) : Number.isFinite(value);
  return fits && value >= rule.min && value <= rule.max;
}

/** The number the text spells within the rule, or undefined when it spells none. */
export function readNumber(raw: string, rule: NumberRule): number | undefined {
  const text = raw.trim();
  const value = (rule.integer ? WHOLE : DECIMAL).test(text) ? Number(text) : Number.NaN;
  return withinRule(value, rule) ? value : undefined;
}

/** A number flag's value, or a UsageError (exit 2) that names the allowed range. */
export function numberFlag(name: string, raw: string, rule: NumberRule): number;
export function numberFlag(name: string, raw: string | undefined, rule: NumberRule): number | undefined;
export function numberFlag(name: string, raw: string | undefined, rule: NumberRule): number | undefined {
  if (raw === undefined) return undefined;
  const value = readNumber(raw, rule);
  if (value === undefined) {
    // "1 or more", not "from 1 or more"; a bounded range is "from 1 to 100".
    const range = rule.max === Number.MAX_SAFE_INTEGER ? `, ${rule.min} or more` : ` from ${rule.min} to ${rule.max}`;
    throw new UsageError(`invalid ${name} ${JSON.stringify(raw)}: expected ${rule.integer ? 'a whole number' : 'a number'}${range}`);
  }
  return value;
}

/**
 * The allowed value that `raw` names in any letter case, in the spelling of `allowed` (the
 * API's): `failed` is FAILED, `ContentJSON` is contentJson (cli.md, Global options).
 */
export function readChoice<T extends string>(raw: string, allowed: readonly T[]): T | undefined {
  const text = raw.trim();
  return allowed.find((value) => value === text) ?? allowed.find((value) => value.toLowerCase() === text.toLowerCase());
}
