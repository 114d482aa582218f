// A local server bound (the sandbox, the webhook receiver): one listen, one way of saying why
// the address could not be had, and the host a client on this machine reaches it by.
import type { AddressInfo, Server } from 'node:net';
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
