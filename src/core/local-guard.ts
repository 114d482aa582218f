// Who may use a keyless local server: the sandbox's control API (sandbox.md, Controlling it) and
// the inspector's page and JSON API (cli.md, webhooks listen --inspect; sandbox.md, Inspecting
// it). Neither has a key, so that a test or a browser on this machine just uses it; what must
// not use it is a web page the developer happens to have open. Three doors a page has, each
// shut here:
// - DNS rebinding: a page's own name made to resolve to 127.0.0.1 reaches the server with that
//   name as Host. Only loopback names, the host the server was bound to, and (bound to a
//   wildcard address, for a container or a VM) IP addresses are accepted: none of these can be
//   an attacker's name.
// - A cross-site request: a browser names the page's origin (Origin, Sec-Fetch-Site); anything
//   but the server's own origin is refused.
// - A "simple" POST that needs no CORS preflight (text/plain, a form): requests that change
//   something must say application/json, which a page can only send after a preflight the
//   server never grants.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from './loopback.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

const bare = (host: string): string =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');

/** application/json, with an optional UTF-8 charset; nothing else is JSON to these servers. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return params.every((param) => {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() !== 'charset') return true;
    return /^"?utf-8"?$/i.test(value?.trim() ?? '');
  });
}

/** The host name of a Host header (`name:port`, `[::1]:port`), or null when it is not one. */
function hostName(header: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?$/i.exec(header);
  return match?.[1] === undefined ? null : bare(match[1]);
}

/** Why a request was refused: `host` and `origin` are 403s, `content-type` a 415. */
export interface LocalRefusal {
  kind: 'host' | 'origin' | 'content-type';
  /** What was wrong, quoting the header; `what` names the server in it. */
  detail: string;
}

/**
 * The check of a request's headers, for a server bound to `boundHost`: null when it may go on,
 * else why not. `what` names the server in the refusal (`the control API`, `the inspector`).
 */
/**
 * Whether a request's Host header names this machine as a server bound to `boundHost` knows it
 * (the DNS-rebinding door): a loopback name, the bound host, or, bound to a wildcard address, an
 * IP address.
 */
export function hostRule(boundHost: string): (host: string | undefined) => boolean {
  const bound = bare(boundHost);
  const acceptsHost = (name: string): boolean => isLoopbackHost(name) || name === bound || (WILDCARDS.has(bound) && isIP(name) !== 0);
  return (host) => {
    const name = host === undefined ? null : hostName(host);
    return name !== null && acceptsHost(name);
  };
}

/** Whether a server bound to `boundHost` listens on loopback only. */
export function boundToLoopback(boundHost: string): boolean {
  return isLoopbackHost(bare(boundHost));
}

export function localGuard(
  boundHost: string,
  what: string,
): (method: string, headers: IncomingHttpHeaders, hasBody: boolean) => LocalRefusal | null {
  const acceptsHost = hostRule(boundHost);

  return (method, headers, hasBody) => {
    const host = headers.host;
    if (!acceptsHost(host)) {
      return {
        kind: 'host',
        detail: `${what} answers only requests addressed to localhost, a loopback address or the --host it was bound to (Host: ${JSON.stringify(host ?? '')})`,
      };
    }
    const origin = headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) {
      return { kind: 'origin', detail: `${what} refuses requests from web pages of another origin (Origin: ${JSON.stringify(origin)})` };
    }
    const site = headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      return { kind: 'origin', detail: `${what} refuses requests from web pages of another origin (Sec-Fetch-Site: ${site})` };
    }
    if ((hasBody || method === 'POST' || method === 'PUT') && !isJsonContentType(headers['content-type'])) {
      return {
        kind: 'content-type',
        detail: 'send requests that change something with Content-Type: application/json (an empty body means {})',
      };
    }
    return null;
  };
}
