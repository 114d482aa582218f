// The live check of a key used by `auth login` and `auth status`: one GET /recordings?limit=1.
import type { ApiClient } from '../../api/types.js';
import { ApiError, NetworkError } from '../../core/errors.js';

export type KeyState = 'ok' | 'unauthorized' | 'missing scope' | 'subscription required' | 'unreachable';

export async function checkKey(client: ApiClient, signal: AbortSignal): Promise<{ state: KeyState; error?: unknown }> {
  try {
    await client.request({ method: 'GET', path: '/recordings', query: { limit: 1 }, schema: null, signal });
    return { state: 'ok' };
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 401) return { state: 'unauthorized', error };
      if (error.code === 'INSUFFICIENT_SCOPE') return { state: 'missing scope', error };
      if (error.code === 'SUBSCRIPTION_REQUIRED') return { state: 'subscription required', error };
      if (error.exitCode === 6) return { state: 'unreachable', error };
    }
    if (error instanceof NetworkError) return { state: 'unreachable', error };
    throw error;
  }
}
