// The one verdict on a webhook signature, with the sentence that explains it: `rfs
// verify-signature` and the receiver of `rfs webhooks listen` (and `sync --listen`) both judge
// through here, so that a delivery is "verified exactly as verify-signature does" (cli.md).
import {
  type SignatureCheck,
  type StreamVerifyInput,
  type VerifyInput,
  verifySignature,
  verifySignatureStream,
} from '../shared/signature.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './header-dump.js';

// Ten digits, as the timestamps themselves (signature.ts): a millisecond value is refused here too.
export const MAX_UNIX_SECONDS = 9_999_999_999;

export interface Verdict extends SignatureCheck {
  /** Why, in a sentence; never containing the expected signature. */
  explanation: string;
}

/** Where the two values came from, for the explanation: flags, a header dump, or a live request. */
export type SignatureSource = 'flags' | 'header-dump' | 'request';

function seconds(n: number): string {
  return `${n} second${n === 1 ? '' : 's'}`;
}

function missingExplanation(source: SignatureSource, timestamp: string | undefined, signature: string | undefined): string {
  const absent = [timestamp === undefined ? 'timestamp' : undefined, signature === undefined ? 'signature' : undefined].filter(
    (w): w is string => w !== undefined,
  );
  const headers = absent.map((w) => `x-service-${w}`).join(' or ');
  switch (source) {
    case 'header-dump':
      return `the header dump has no ${headers} header`;
    case 'request':
      return `the request has no ${headers} header`;
    case 'flags':
      return absent.length === 2
        ? 'neither --timestamp nor --signature was given (or use --headers <file>)'
        : `no --${absent[0] ?? ''} was given`;
  }
}

type VerdictInput<T> = T & { source: SignatureSource };

/**
 * The cases signature.ts cannot see: a value given but empty (`--timestamp "$TS"` with TS
 * unset) was supplied, so it is malformed rather than missing. Undefined when the check decides.
 */
function beforeCheck(input: VerdictInput<Omit<VerifyInput, 'body'>>): Verdict | undefined {
  const { timestamp, signature, source } = input;
  if (timestamp === undefined || signature === undefined) {
    return { valid: false, reason: 'missing', ageSeconds: null, explanation: missingExplanation(source, timestamp, signature) };
  }
  if (timestamp.trim() === '') return { valid: false, reason: 'malformed', ageSeconds: null, explanation: timestampHelp(source) };
  if (signature.trim() === '') return { valid: false, reason: 'malformed', ageSeconds: null, explanation: signatureHelp(source) };
  return undefined;
}

const tsName = (source: SignatureSource): string => (source === 'flags' ? '--timestamp' : `the ${TIMESTAMP_HEADER} header`);
const sigName = (source: SignatureSource): string => (source === 'flags' ? '--signature' : `the ${SIGNATURE_HEADER} header`);
const timestampHelp = (source: SignatureSource): string =>
  `${tsName(source)} must be whole Unix seconds, such as 1700000000 (not milliseconds, not a decimal)`;
const signatureHelp = (source: SignatureSource): string => `${sigName(source)} must be sha256= followed by 64 hex digits`;

function explain(check: SignatureCheck, source: SignatureSource, toleranceSeconds: number): Verdict {
  switch (check.reason) {
    case null:
      return { ...check, explanation: 'the signature matches the payload and the timestamp is within the tolerance' };
    case 'missing':
      return { ...check, explanation: `${tsName(source)} or ${sigName(source)} is empty` };
    case 'malformed':
      // signature.ts reads the timestamp first: no age means the timestamp was unreadable.
      return { ...check, explanation: check.ageSeconds === null ? timestampHelp(source) : signatureHelp(source) };
    case 'stale': {
      const age = check.ageSeconds ?? 0;
      const when = age >= 0 ? `${seconds(age)} old` : `${seconds(-age)} in the future`;
      return { ...check, explanation: `the timestamp is ${when}; the tolerance is ${seconds(toleranceSeconds)} either way` };
    }
    case 'mismatch':
      return {
        ...check,
        explanation:
          "the signature does not match this payload, timestamp and secret (a re-serialised body or another subscription's secret?)",
      };
  }
}

/** The check of signature.ts, explained. */
export function verdict(input: VerdictInput<VerifyInput>): Verdict {
  return beforeCheck(input) ?? explain(verifySignature(input), input.source, input.toleranceSeconds);
}

/** verdict() over a body that streams (verify-signature's payload), read to its end either way. */
export async function verdictOfStream(input: VerdictInput<StreamVerifyInput>): Promise<Verdict> {
  const early = beforeCheck(input);
  if (early) {
    for await (const _ of input.body);
    return early;
  }
  return explain(await verifySignatureStream(input), input.source, input.toleranceSeconds);
}
