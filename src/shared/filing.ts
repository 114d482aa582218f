// What a filing must be, checked in one place for every way one is made:
// `rfs file` from flags, each line of `rfs file --from`, the answer of `rfs sync`'s command, and
// the sandbox's POST filings. Beyond the request's shape (schemas.ts): a provider and an
// externalId that are more than spaces, metadata whose answer stays readable (json-depth.ts),
// and a filing time no more than a day ahead of now.
import { metadataTooDeep, MAX_METADATA_DEPTH } from './json-depth.js';
import { FilingRequest } from './schemas.js';
import { parseIsoTime, INSTANT } from './iso-time.js';

/** A filedAt later than this ahead of now is refused: a clock or a typo (2099), not a filing. */
export const MAX_FILED_AT_AHEAD_MS = 24 * 60 * 60 * 1000;
/** A filedAt before 1970 is a zero value or a typo (0000-01-01), not a filing. */
const EARLIEST_FILED_AT_MS = 0;
/**
 * The most characters of each text field (a 1 MB provider was stored and
 * served in every answer of its recording): names and ids of another system, and a link.
 */
export const MAX_FILING_CHARS = { provider: 255, externalId: 1024, externalUrl: 2048 } as const;

/** What makes a provider or an externalId text no system can hold: a control character (NUL…) or half a surrogate pair. */
function badText(text: string): string | null {
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text))
    return 'holds half of a UTF-16 surrogate pair (not valid Unicode)';
  const control = /[\u0000-\u001f\u007f]/.exec(text);
  return control ? `holds the control character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** The path of a number JSON cannot write (1e999 parses as Infinity, and is written back as null), or null. */
function nonFiniteNumber(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, path] = item;
    if (typeof node === 'number' && !Number.isFinite(node)) return path;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) stack.push([child, Array.isArray(node) ? `${path}[${key}]` : `${path}.${key}`]);
  }
  return null;
}

export type FilingField = 'provider' | 'externalId' | 'externalUrl' | 'filedAt' | 'metadata';

export type FilingCheck = { filing: FilingRequest } | { field: FilingField | null; problem: string };

export interface CheckFilingOptions {
  /** How a field is named in a problem: `"externalId"` by default, `--external-id` for flags. */
  names?: Partial<Record<FilingField, string>>;
  /** What holds the fields, for an unknown one: a `--from` line also has an id. */
  holder?: 'a filing' | 'a line';
}

const FIELDS = 'provider, externalId and optionally externalUrl, filedAt, metadata';

/** The filing, or the first problem with it in plain words (never the validator's phrasing). */
export function checkFiling(value: Record<string, unknown>, now: number, o: CheckFilingOptions = {}): FilingCheck {
  const name = (field: FilingField): string => o.names?.[field] ?? JSON.stringify(field);
  // Before the schema, which walks the value recursively: checked here, the depth is only a loop.
  if (typeof value.metadata === 'object' && value.metadata !== null && metadataTooDeep(value.metadata)) {
    return {
      field: 'metadata',
      problem: `${name('metadata')} is nested more than ${MAX_METADATA_DEPTH} levels deep: its filing's answer could not be read back`,
    };
  }
  const parsed = FilingRequest.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') {
      const keys = (issue.keys ?? []).map((k) => JSON.stringify(k)).join(', ');
      const holder = o.holder === 'a line' ? 'a line has id,' : 'a filing has';
      return { field: null, problem: `unknown field ${keys}: ${holder} ${FIELDS}` };
    }
    const field = (issue?.path.length === 1 ? String(issue.path[0]) : null) as FilingField | null;
    if (field === null) return { field: null, problem: 'not a valid filing' };
    const input = value[field];
    if (input === undefined) return { field, problem: `${name(field)} is missing` };
    switch (field) {
      case 'filedAt':
        return { field, problem: `${name(field)} must be an ISO 8601 time such as 2026-11-22T09:30:00Z` };
      case 'metadata':
        return { field, problem: `${name(field)} must be a JSON object` };
      default:
        return { field, problem: input === '' ? `${name(field)} is empty` : `${name(field)} must be a string` };
    }
  }
  const filing = parsed.data;
  for (const field of ['provider', 'externalId'] as const) {
    if (filing[field].trim() === '') return { field, problem: `${name(field)} is blank: it must hold more than spaces` };
    const bad = badText(filing[field]);
    if (bad !== null) return { field, problem: `${name(field)} ${bad}` };
  }
  for (const field of ['provider', 'externalId', 'externalUrl'] as const) {
    const length = filing[field]?.length ?? 0;
    if (length > MAX_FILING_CHARS[field])
      return { field, problem: `${name(field)} is ${length} characters long; at most ${MAX_FILING_CHARS[field]}` };
  }
  if (filing.externalUrl !== undefined && !/^https?:\/\/[^\s/?#]/i.test(filing.externalUrl))
    return {
      field: 'externalUrl',
      problem: `${name('externalUrl')} must be an http or https link (${JSON.stringify(filing.externalUrl.slice(0, 40))})`,
    };
  if (filing.filedAt !== undefined) {
    const at = parseIsoTime(filing.filedAt, INSTANT);
    if (at !== null && at > now + MAX_FILED_AT_AHEAD_MS) {
      return { field: 'filedAt', problem: `${name('filedAt')} is more than a day in the future (${filing.filedAt})` };
    }
    if (at !== null && at < EARLIEST_FILED_AT_MS)
      return { field: 'filedAt', problem: `${name('filedAt')} is before 1970 (${filing.filedAt})` };
  }
  const infinite = filing.metadata === undefined ? null : nonFiniteNumber(filing.metadata);
  if (infinite !== null)
    return {
      field: 'metadata',
      problem: `${name('metadata')} holds a number JSON cannot write (at ${infinite.slice(1) || 'its top'}): 1e999 and the like`,
    };
  return { filing };
}
