// Which requests may be sent twice (cli.md, Retries and pacing; api.md, Idempotency): the one
// home of that rule, for the client's retries and for every command that makes a POST.
import type { Method } from './types.js';

/** A filing is idempotent on (provider, externalId) by api.md. */
const FILING = /^\/recordings\/[^/?#]+\/filings$/;

/** An Idempotency-Key for one invocation: `rfs-` and a random UUID (cli.md, webhooks create). */
export function newIdempotencyKey(): string {
  // The global Web Crypto, loaded on first use: the client imports this file at every start.
  return `rfs-${globalThis.crypto.randomUUID()}`;
}

/** POST /webhooks requires an Idempotency-Key (api.md): rfs makes one when none is given. */
export function needsIdempotencyKey(method: Method, path: string): boolean {
  return method === 'POST' && pathOnly(path) === '/webhooks';
}

/**
 * Whether repeating the request cannot do a second thing: GET and DELETE by HTTP's meaning, a
 * POST only when the contract says so — a filing, or a request that carries an Idempotency-Key.
 * `path` is below `/api/v1`, as the client sends it; header names in any case.
 */
export function isIdempotent(method: Method, path: string, headers: Record<string, string> | undefined): boolean {
  if (method !== 'POST') return true;
  if (FILING.test(pathOnly(path))) return true;
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
}

function pathOnly(path: string): string {
  const end = path.search(/[?#]/);
  return (end === -1 ? path : path.slice(0, end)).replace(/\/+$/, '') || '/';
}
