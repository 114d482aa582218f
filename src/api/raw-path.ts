// What `rfs api <path>` may ask for (cli.md, api): a path below `{base_url}/api/v1` and nothing
// else, so that the key it sends never reaches another origin or another part of that origin.
import { apiRoot } from '../config/credentials.js';
import { UsageError } from '../core/errors.js';

/** RFC 3986 pchar, `/` and `%XX`; the query also allows `?`. */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const QUERY_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

/** Whether the text starts with a URL scheme (`https:`, `mailto:`, …), i.e. is not a path. */
export function isAbsoluteUrl(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(text.trim());
}

/**
 * The path and query to send, below the API root, starting with `/`. `serviceRoot` is the base
 * URL without `/api/v1` (the client's `baseUrl`): an absolute URL is accepted only below it.
 */
export function apiRequestPath(input: string, serviceRoot?: string): string {
  let rest = input.trim();
  if (rest === '') throw new UsageError('the path is empty: give one below /api/v1, such as recordings');
  if (isAbsoluteUrl(rest)) rest = belowRoot(rest, serviceRoot);
  else if (rest.startsWith('//') || rest.startsWith('\\')) throw refused(input, 'a path starting with // names another host');
  else rest = rest.replace(/^\//, '');
  if (rest.includes('#')) throw refused(input, 'a fragment (#) is never sent');
  const cut = rest.indexOf('?');
  const path = cut === -1 ? rest : rest.slice(0, cut);
  const query = cut === -1 ? '' : rest.slice(cut);
  if (!PATH_CHARS.test(path) || !QUERY_CHARS.test(query)) {
    throw refused(input, 'it has characters a URL cannot carry as they are (spaces, backslashes, quotes…): percent-encode them');
  }
  if (/%(?![0-9a-f]{2})/i.test(rest)) throw refused(input, 'a % must start a %XX escape');
  for (const segment of path.split('/')) {
    // A segment that means "here" or "parent" once decoded, however it is spelled.
    const decoded = segment.replace(/%2e/gi, '.');
    if (decoded === '.' || decoded === '..') throw refused(input, 'it leaves /api/v1 with . or .. segments');
  }
  if (/\/\//.test(path)) throw refused(input, 'it has an empty path segment (//)');
  return `/${path}${query}`;
}

function belowRoot(url: string, serviceRoot: string | undefined): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refused(url, 'it is not a valid URL');
  }
  // The API root as the client makes it from the base URL.
  const root = serviceRoot === undefined ? undefined : new URL(`${apiRoot(serviceRoot)}/`);
  if (root === undefined || parsed.origin !== root.origin) {
    throw refused(url, `rfs api sends the key only to ${root ? root.href : 'the configured service'}`);
  }
  // The text as given (not as the URL parser normalised it), so that `..` is seen and refused.
  const given = url.slice(url.indexOf('//') + 2).replace(/^[^/?#]*/, '');
  if (!given.startsWith(root.pathname)) throw refused(url, `only paths below ${root.href} are allowed`);
  return given.slice(root.pathname.length);
}

function refused(input: string, why: string): UsageError {
  return new UsageError(`refused path ${JSON.stringify(input)}: ${why}`, {
    hint: 'give a path below {base_url}/api/v1, such as recordings or /webhooks/deliveries?status=FAILED',
  });
}
