// API keys and base URLs, checked before anything is sent (cli.md, Connection and credentials).
import { UsageError } from '../core/errors.js';
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

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host) || host.endsWith('.localhost')) return true;
  // The URL parser has already turned forms like 2130706433 or 0x7f.1 into dotted quads.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The service root as given, turned into the API root `{base_url}/api/v1` (no trailing slash).
 * Plain http is allowed only to loopback, so that a key never travels in clear text.
 */
export function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`invalid base URL: ${JSON.stringify(baseUrl)}`, { hint: 'give a URL such as https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid base URL: the scheme must be https (got ${url.protocol.replace(':', '')})`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing plain http to ${url.hostname}: an API key must not travel in clear text`, {
      hint: 'use https://, or http:// only to localhost / 127.0.0.1 / [::1]',
    });
  }
  if (url.username || url.password) throw new UsageError('invalid base URL: credentials do not belong in the URL');
  if (url.search || url.hash) throw new UsageError('invalid base URL: it must not carry a query or fragment');
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.endsWith('/api/v1') ? path : `${path}/api/v1`;
  return `${url.origin}${root}`;
}
