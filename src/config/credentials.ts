// API keys and base URLs, checked before anything is sent (cli.md, Connection and credentials).
import { UsageError } from '../core/errors.js';
import { checkDestination } from '../core/loopback.js';
import { API_KEY_PREFIX } from '../core/redact.js';

export function checkKeyFormat(key: string): string {
  const trimmed = key.trim();
  if (!trimmed.startsWith(API_KEY_PREFIX) || trimmed.length <= API_KEY_PREFIX.length || /\s/.test(trimmed)) {
    // Never echo what was given: it may be a real secret pasted into the wrong place.
    throw new UsageError(`that is not an API key: keys look like ${API_KEY_PREFIX}<secret>, with no spaces`, {
      hint: 'create a key in the workspace settings, or use a sandbox key from `rfs sandbox`',
    });
  }
  return trimmed;
}

/**
 * The service root as given, turned into the API root `{base_url}/api/v1` (no trailing slash).
 * Plain http is allowed only to loopback, so that a key never travels in clear text.
 */
export function apiRoot(baseUrl: string): string {
  const url = checkDestination(baseUrl, {
    name: 'base URL',
    example: 'https://api.example.com',
    why: 'an API key must not travel in clear text',
  });
  if (url.search || url.hash) throw new UsageError('invalid base URL: it must not carry a query or fragment');
  checkHostName(url.hostname);
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.endsWith('/api/v1') ? path : `${path}/api/v1`;
  return `${url.origin}${root}`;
}

/** DNS (RFC 1035): a name of at most 253 characters, each of its labels at most 63. */
const MAX_HOST_NAME = 253;
const MAX_LABEL = 63;

/**
 * A host name the resolver would refuse outright (getaddrinfo EINVAL, which rfs would report
 * as a bug on every command): refused here, with the rule, before it is stored or used.
 */
function checkHostName(hostname: string): void {
  // An IPv6 literal is bracketed; a trailing dot (a fully qualified name) is no label.
  if (hostname.startsWith('[')) return;
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const hint = 'a host name has at most 253 characters, and each part between dots at most 63';
  if (name.length > MAX_HOST_NAME) {
    throw new UsageError(`invalid base URL: its host name is ${name.length} characters long`, { hint });
  }
  const long = name.split('.').find((label) => label.length > MAX_LABEL);
  if (long !== undefined) {
    throw new UsageError(`invalid base URL: a part of its host name is ${long.length} characters long (${long.slice(0, 12)}…)`, { hint });
  }
}
