// Who may drive the control API (sandbox.md, Controlling it). It has no key, so that a test on
// this machine just uses it; what must not use it is a web page the developer happens to have
// open. Three doors a page has, each shut here:
// - DNS rebinding: a page's own name made to resolve to 127.0.0.1 reaches the sandbox with that
//   name as Host. Only loopback names, the --host the sandbox was bound to, and (bound to a
//   wildcard address, for a container or a VM) IP addresses are accepted: none of these can be
//   an attacker's name.
// - A cross-site request: a browser names the page's origin (Origin, Sec-Fetch-Site); anything
//   but the sandbox's own origin is refused.
// - A "simple" POST that needs no CORS preflight (text/plain, a form): control requests that
//   change something must say application/json, which a page can only send after a preflight
//   the sandbox never grants.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../core/loopback.js';
import { ProblemError } from './problem.js';
import { isJsonContentType } from './request.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

const bare = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

function refused(detail: string): ProblemError {
  return new ProblemError('CONTROL_REFUSED', detail, { extra: { detail } });
}

/** The host name of a Host header (`name:port`, `[::1]:port`), or null when it is not one. */
function hostName(header: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?$/i.exec(header);
  return match?.[1] === undefined ? null : bare(match[1]);
}

/** Whether a request's Host names this machine as the sandbox bound to `bound` knows it (the DNS-rebinding door). */
function hostRule(boundHost: string): (host: string | undefined) => boolean {
  const bound = bare(boundHost);
  const acceptsHost = (name: string): boolean => isLoopbackHost(name) || name === bound || (WILDCARDS.has(bound) && isIP(name) !== 0);
  return (host) => {
    const name = host === undefined ? null : hostName(host);
    return name !== null && acceptsHost(name);
  };
}

/**
 * The same Host rule for /api/v1 (issue 32, item 6), when the sandbox is bound to loopback:
 * with the README's `--seed 42` its admin key is public, so a rebinding page could read every
 * recording and create subscriptions. Bound beyond loopback (a container, a VM), clients reach
 * it by names of their own, and the keys are what guards it. Null: no check.
 */
export function apiHostGuard(boundHost: string): ((headers: IncomingHttpHeaders) => void) | null {
  if (!isLoopbackHost(bare(boundHost))) return null;
  const accepts = hostRule(boundHost);
  return (headers) => {
    if (accepts(headers.host)) return;
    // The detail goes to the sandbox's log only: an /api/v1 problem carries the documented fields.
    throw new ProblemError(
      'HOST_REFUSED',
      `bound to loopback, the API answers only requests addressed to localhost or a loopback address (Host: ${JSON.stringify(headers.host ?? '')})`,
    );
  };
}

/** A check of a control request's headers, for a sandbox bound to `boundHost`; throws a 403 or a 415. */
export function controlGuard(boundHost: string): (method: string, headers: IncomingHttpHeaders, hasBody: boolean) => void {
  const acceptsHost = hostRule(boundHost);

  return (method, headers, hasBody) => {
    const host = headers.host;
    if (!acceptsHost(host)) {
      throw refused(
        `the control API answers only requests addressed to localhost, a loopback address or the --host it was bound to (Host: ${JSON.stringify(host ?? '')})`,
      );
    }
    const origin = headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) {
      throw refused(`the control API refuses requests from web pages of another origin (Origin: ${JSON.stringify(origin)})`);
    }
    const site = headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw refused(`the control API refuses requests from web pages of another origin (Sec-Fetch-Site: ${site})`);
    }
    if ((hasBody || method === 'POST' || method === 'PUT') && !isJsonContentType(headers['content-type'])) {
      throw new ProblemError('UNSUPPORTED_CONTENT_TYPE', 'send control requests that change something as application/json', {
        extra: { detail: 'send control requests that change something with Content-Type: application/json (an empty body means {})' },
      });
    }
  };
}
