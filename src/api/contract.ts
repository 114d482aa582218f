// A 2xx answer is checked against its shape at the boundary (style.md, Zod at the boundary): an
// answer that is not JSON or not the documented shape becomes a ContractError (exit 7) that
// names the path of the bad field, e.g. `data[3].status: expected one of …`. The shapes are the
// zod schemas of shared/schemas.ts; what runs is their checks generated as plain functions
// (shared/answer-checks.generated.ts, scripts/checks.mjs), the same verdicts and issues without
// loading zod on the path of one page (ARCHITECTURE.md, "How rfs starts").
import { ContractError } from '../core/errors.js';
import { keepNumberLiterals, lossyNumbers, type NumberLiteral } from '../core/number-literals.js';
import type { Check, CheckIssue } from '../shared/check-runtime.js';
import { MAX_JSON_DEPTH, bytesNestDeeperThan } from '../shared/json-depth.js';

export function parseJson(body: Buffer): unknown {
  // Checked on the bytes, before parsing: one pass with no allocation, where walking the
  // parsed tree cost a visible share of a 100,000-item --all.
  if (bytesNestDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new ContractError(`the server's answer is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  let value: unknown;
  const text = body.toString('utf8');
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ContractError("the server's answer is not JSON", {
      cause,
      hint: 'check --base-url: it should point at the Recording Filing Service, not a web page or proxy',
    });
  }
  // Numbers that JavaScript would write differently (`3.0`, beyond 2^53) are printed as sent.
  const literals = lossyNumbers(text);
  if (literals.length > 0 && typeof value === 'object' && value !== null) {
    keepNumberLiterals(value, literals);
    withLiterals.set(value, literals);
  }
  return value;
}

/** Parsed answers that hold such numbers, for the checked copy that checkShape returns. */
const withLiterals = new WeakMap<object, readonly NumberLiteral[]>();

export function checkShape<T>(check: Check<T>, value: unknown): T {
  const result = check(value);
  if (result.success) {
    const literals = typeof value === 'object' && value !== null ? withLiterals.get(value) : undefined;
    if (literals !== undefined) keepNumberLiterals(result.data, literals);
    return result.data;
  }
  const issues = result.issues;
  const first = issues[0];
  if (first === undefined) throw new ContractError("the server's answer is not the documented shape");
  const path = formatPath(first.path);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw new ContractError(`the server's answer is not the documented shape: ${path || '(the body)'}: ${describeIssue(first)}${more}`, {
    path,
  });
}

/** `['data', 3, 'status']` → `data[3].status`; keys that are not identifiers are quoted. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

function describeIssue(issue: CheckIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `missing (expected ${issue.expected})` : `expected ${issue.expected}, got ${kindOf(issue.input)}`;
    case 'invalid_value':
      return `expected one of ${(issue.values ?? []).map((v) => JSON.stringify(v)).join(', ')}, got ${preview(issue.input)}`;
    default:
      return issue.message;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A short view of a wrong value: enum values are short; anything else is shown by its kind. */
function preview(value: unknown): string {
  if (typeof value === 'string') return value.length <= 40 ? JSON.stringify(value) : `a string of ${value.length} characters`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return kindOf(value);
}
