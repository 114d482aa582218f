// What the generated checks (*.generated.ts, written by scripts/checks.mjs from the zod schemas)
// run on: the issues zod would report, with the same codes, paths and English messages
// (zod's own locale, src/shared/zod-messages.ts), so that a check decides and words an answer as
// zod's runtime parser does without loading zod on the path of one page (ARCHITECTURE.md, "How
// rfs starts"). test/property/generated-checks.test.ts holds the two to the same verdicts.

export type Path = (string | number)[];

export interface CheckIssue {
  code: 'invalid_type' | 'invalid_value' | 'invalid_format' | 'too_small' | 'too_big' | 'custom' | 'unrecognized_keys' | 'invalid_union';
  path: Path;
  message: string;
  input: unknown;
  expected?: string;
  values?: readonly unknown[];
  origin?: string;
  minimum?: number;
  maximum?: number;
  inclusive?: boolean;
  format?: string;
  pattern?: string;
  keys?: string[];
  /** zod's flag: false or absent, the checks after this one on the same value do not run. */
  continue?: boolean;
}

export type CheckResult<T> = { success: true; data: T } | { success: false; issues: CheckIssue[] };

/** A generated check of one shape: zod's safeParse, without zod. */
export type Check<T> = (value: unknown) => CheckResult<T>;

/** The part of a check that walks one schema: returns the output, pushes issues to `out`. */
export type Walk = (value: unknown, path: Path, out: CheckIssue[]) => unknown;

export function run<T>(walk: Walk, value: unknown): CheckResult<T> {
  const out: CheckIssue[] = [];
  const data = walk(value, [], out);
  return out.length === 0 ? { success: true, data: data as T } : { success: false, issues: out };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an issue pushed since `start` stops the checks that follow (zod's `aborted`). */
export function aborted(out: readonly CheckIssue[], start: number): boolean {
  for (let i = start; i < out.length; i++) if (out[i]?.continue !== true) return true;
  return false;
}

/** Whether an issue since `start` stops even the checks that decide for themselves when to run. */
export function explicitlyAborted(out: readonly CheckIssue[], start: number): boolean {
  for (let i = start; i < out.length; i++) if (out[i]?.continue === false) return true;
  return false;
}

/** zod's default `when` for a length check: a value that is there and has a length. */
export function hasLength(value: unknown): boolean {
  return value !== null && value !== undefined && (value as { length?: unknown }).length !== undefined;
}

/** A string's length in code points where that decides against `minimum`, as zod counts it. */
export function lengthOf(value: unknown, minimum: number): number {
  const units = (value as { length: number }).length;
  if (typeof value !== 'string' || units < minimum || units >= minimum * 2) return units;
  let count = units;
  for (let i = 0; i < units - 1; i++) {
    if ((value.charCodeAt(i) & 0xfc00) === 0xd800 && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

export function push(out: CheckIssue[], path: Path, issue: Omit<CheckIssue, 'path' | 'message'> & { message?: string }): void {
  out.push({ ...issue, path: [...path], message: issue.message ?? messageOf(issue) });
}

/**
 * One key of an object, as zod's object parser handles a property's result: `optin`/`optout`
 * are the field schema's (`optional` for z.optional, `defaulted` for z._default).
 */
export function property(
  target: Record<string, unknown>,
  input: Record<string, unknown>,
  key: string,
  walk: Walk,
  optin: 'optional' | 'defaulted' | undefined,
  optout: 'optional' | undefined,
  path: Path,
  out: CheckIssue[],
): void {
  const before = out.length;
  const present = key in input;
  path.push(key);
  const value = walk(input[key], path, out);
  path.pop();
  if (!present && optout === 'optional' && optin !== undefined) {
    // An absent optional key: whatever its schema said of `undefined` is dropped.
    out.length = before;
    return;
  }
  if (!present && optin === undefined) {
    if (out.length === before) push(out, [...path, key], { code: 'invalid_type', expected: 'nonoptional', input: undefined });
    return;
  }
  if (value === undefined) {
    if (present || (optin === 'defaulted' && optout !== 'optional')) target[key] = undefined;
  } else target[key] = value;
}

/** The issue of a union none of whose options matched, or the one option that came close. */
export function union(options: readonly Walk[], value: unknown, path: Path, out: CheckIssue[]): unknown {
  const results: { value: unknown; issues: CheckIssue[] }[] = [];
  for (const option of options) {
    const issues: CheckIssue[] = [];
    const result = option(value, path, issues);
    if (issues.length === 0) return result;
    results.push({ value: result, issues });
  }
  const near = results.filter((r) => !aborted(r.issues, 0));
  if (near.length === 1) {
    out.push(...(near[0] as (typeof near)[number]).issues);
    return (near[0] as (typeof near)[number]).value;
  }
  push(out, path, { code: 'invalid_union', input: value });
  return value;
}

// zod's English messages (zod/v4/locales/en.js), for the issues these checks raise.

function typeName(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function primitive(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  return typeof value === 'string' ? `"${value}"` : `${String(value)}`;
}

function messageOf(issue: Omit<CheckIssue, 'path' | 'message'>): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected}, received ${typeName(issue.input)}`;
    case 'invalid_value': {
      const values = issue.values ?? [];
      if (values.length === 1) return `Invalid input: expected ${primitive(values[0])}`;
      return `Invalid option: expected one of ${values.map(primitive).join('|')}`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const adj = issue.inclusive ? (small ? '>=' : '<=') : small ? '>' : '<';
      const bound = String(small ? issue.minimum : issue.maximum);
      const unit = issue.origin === 'string' ? 'characters' : issue.origin === 'array' ? 'items' : undefined;
      const head = small ? 'Too small' : 'Too big';
      if (unit) return `${head}: expected ${issue.origin} to have ${adj}${bound} ${unit}`;
      return `${head}: expected ${issue.origin ?? 'value'} to be ${adj}${bound}`;
    }
    case 'invalid_format':
      return `Invalid string: must match pattern ${issue.pattern}`;
    case 'unrecognized_keys':
      return `Unrecognized key${(issue.keys ?? []).length > 1 ? 's' : ''}: ${(issue.keys ?? []).map(primitive).join(', ')}`;
    default:
      return 'Invalid input';
  }
}
