// A local server bound (the sandbox, the webhook receiver): one listen, one way of saying why
// the address could not be had, and the host a client on this machine reaches it by.
import type { AddressInfo, Server } from 'node:net';
import { UsageError } from './errors.js';
import { isLoopbackHost } from './loopback.js';

// The address asked for is taken, not allowed or not on this machine: the user's to change.
const ADDRESS_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND']);

export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Listens on host:port (0: any free port). A ListenError when the address cannot be had; other errors as they are. */
export async function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && ADDRESS_CODES.has(code))
      throw new ListenError(`cannot listen on ${host}:${port} (${code})`, code, { cause: error });
    throw error;
  }
  return server.address() as AddressInfo;
}

/**
 * The host part of the URL a client on this machine uses: a wildcard bind is reached through
 * loopback; given the address bound, `localhost` is shown as that address, since a client may
 * try another family first.
 */
export function urlHost(host: string, boundAddress?: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  const shown = host === 'localhost' && boundAddress !== undefined ? boundAddress : host;
  return shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown;
}

/**
 * The URL of the address really bound, for the user: `http://0.0.0.0:8787` for every IPv4
 * interface, never the loopback address a client on this machine would use (urlHost), which
 * would hide that the server can be reached from the network.
 */
export function boundUrl(bound: AddressInfo): string {
  const host = bound.address.includes(':') ? `[${bound.address}]` : bound.address;
  return `http://${host}:${bound.port}`;
}

/** Whether a bound address is every interface (0.0.0.0, ::) rather than one. */
export function isWildcardAddress(address: string): boolean {
  return address === '0.0.0.0' || address === '::';
}

/**
 * The warning for a server bound beyond loopback, as the sandbox gives one (`given` is the flag
 * and value as typed, `what` what can then be reached); undefined on loopback.
 */
export function beyondLoopbackWarning(host: string, given: string, what: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return `${given} is not a loopback address: ${what} can be reached from the network; bind 127.0.0.1 (the default) to keep it on this machine`;
}

/** Where an inspector serves without an address (cli.md, webhooks listen --inspect). */
export const DEFAULT_INSPECT_ADDRESS = { host: '127.0.0.1', port: 8788 } as const;

/**
 * An address flag with an optional value (`--inspect [<host:port>]`): `host:port`,
 * `[::1]:port`, or a port alone on the default host; `true` (the flag without a value) is the
 * defaults. A message saying what is expected when it is none of these.
 */
export function parseListenAddress(
  value: string | true,
  defaults: { host: string; port: number },
): { host: string; port: number } | string {
  if (value === true) return { ...defaults };
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*[A-Za-z.-][A-Za-z0-9.-]*|[0-9.]+):)?([0-9]{1,5})?$/.exec(value);
  if (value === '' || match === null) return `expected <host:port> such as ${defaults.host}:${defaults.port}`;
  const host = (match[1] ?? defaults.host).replace(/^\[(.*)\]$/, '$1');
  const port = match[2] === undefined ? defaults.port : Number(match[2]);
  if (port > 65_535) return 'the port must be 0 to 65535';
  return { host, port };
}

/** `--inspect [<host:port>]` checked: a loopback address only (cli.md); a UsageError (exit 2) otherwise. */
export function inspectAddressFlag(value: string | true): { host: string; port: number } {
  const address = parseListenAddress(value, DEFAULT_INSPECT_ADDRESS);
  if (typeof address === 'string') throw new UsageError(`invalid --inspect ${JSON.stringify(value)}: ${address}`);
  if (!isLoopbackHost(address.host))
    throw new UsageError(`invalid --inspect ${JSON.stringify(value)}: the inspector serves on a loopback address only, such as 127.0.0.1`);
  return address;
}
