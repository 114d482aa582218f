// The live check of a key used by `auth login` and `auth status` (cli.md, auth): scopes are
// learned only from requests that change nothing, one GET per scope that a GET can prove.
// write:recordings has no such request, so it is never claimed.
import type { ApiClient } from '../../api/types.js';
import type { Session } from '../../core/context.js';
import { ApiError, NetworkError } from '../../core/errors.js';
import type { Spinner } from '../../core/ui.js';

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
  // auth status learns every scope it can; auth login stops at the first scope proven (the
  // request cli.md names, then the next only when that one was refused for its scope), so
  // that a key is ok or not by one verdict in both (a webhooks-only key).
  for (const { scope, path } of PROBES) {
    if (!o.allScopes && scopes.length > 0) break;
    const answer = await probe(client, path, signal);
    if (answer.ok) scopes.push(scope);
    else if (answer.state === 'no scope') refused ??= answer.error;
    else return { state: answer.state, scopes: [], readsRecordings: false, error: answer.error };
  }
  const readsRecordings = scopes.includes('read:recordings');
  if (scopes.length === 0) return { state: 'missing scope', scopes, readsRecordings, error: refused };
  return { state: 'ok', scopes, readsRecordings };
}

/** How long a check may take before a spinner says what it waits for. */
const QUIET_MS = 1000;

/**
 * Runs a check of the key at `baseUrl`, with a spinner on stderr once it has taken a second
 * (a service that accepts and never answers left a blank screen for the whole timeout).
 */
export async function checkingKey<T>(ctx: Session, baseUrl: string, check: () => Promise<T>): Promise<T> {
  const quiet = new AbortController();
  let spinner: Spinner | undefined;
  const shown = ctx.clock.sleep(QUIET_MS, quiet.signal).then(
    async () => {
      spinner = await ctx.ui.spinner(`checking the key with ${baseUrl}…`);
      if (quiet.signal.aborted) spinner.stop();
    },
    () => undefined,
  );
  try {
    return await check();
  } finally {
    quiet.abort();
    spinner?.stop();
    await shown;
  }
}
