// The live check of a key used by `auth login` and `auth status` (cli.md, auth): scopes are
// learned only from requests that change nothing, one GET per scope that a GET can prove.
// write:recordings has no such request, so it is never claimed.
import type { ApiClient } from '../../api/types.js';
import { ApiError, NetworkError } from '../../core/errors.js';

export type KeyState = 'ok' | 'unauthorized' | 'missing scope' | 'subscription required' | 'unreachable';

/** The scopes a GET can prove, each with the cheapest request that needs it. */
const PROBES = [
  { scope: 'read:recordings', path: '/recordings' },
  { scope: 'manage:webhooks', path: '/webhooks' },
] as const;

export type ProvableScope = (typeof PROBES)[number]['scope'];

export interface KeyCheck {
  state: KeyState;
  /** The scopes the key was seen to have. */
  scopes: ProvableScope[];
  /** Whether the key can read recordings: login notes when it cannot. */
  readsRecordings: boolean;
  /** The failure behind a state other than ok. */
  error?: unknown;
}

type Probe = { ok: true } | { ok: false; state: KeyState | 'no scope'; error: unknown };

async function probe(client: ApiClient, path: string, signal: AbortSignal): Promise<Probe> {
  try {
    await client.request({ method: 'GET', path, query: { limit: 1 }, schema: null, signal });
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 401) return { ok: false, state: 'unauthorized', error };
      if (error.code === 'INSUFFICIENT_SCOPE') return { ok: false, state: 'no scope', error };
      if (error.code === 'SUBSCRIPTION_REQUIRED') return { ok: false, state: 'subscription required', error };
      if (error.exitCode === 6) return { ok: false, state: 'unreachable', error };
    }
    if (error instanceof NetworkError) return { ok: false, state: 'unreachable', error };
    throw error;
  }
}

/**
 * ok when the key proved at least one scope; missing scope when every GET was refused for its
 * scope (a key that can only file recordings cannot be told apart from one that can do nothing
 * without filing something). Any other answer ends the check at once: it would be the same for
 * every request.
 */
export async function checkKey(client: ApiClient, signal: AbortSignal, o: { allScopes: boolean }): Promise<KeyCheck> {
  const scopes: ProvableScope[] = [];
  let refused: unknown;
  // auth login checks with the one request cli.md names; auth status learns every scope it can.
  for (const { scope, path } of o.allScopes ? PROBES : PROBES.slice(0, 1)) {
    const answer = await probe(client, path, signal);
    if (answer.ok) scopes.push(scope);
    else if (answer.state === 'no scope') refused ??= answer.error;
    else return { state: answer.state, scopes: [], readsRecordings: false, error: answer.error };
  }
  const readsRecordings = scopes.includes('read:recordings');
  if (scopes.length === 0) return { state: 'missing scope', scopes, readsRecordings, error: refused };
  return { state: 'ok', scopes, readsRecordings };
}
