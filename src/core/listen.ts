// A local server bound (the sandbox, the webhook receiver): one listen, one way of saying why
// the address could not be had, and the host a client on this machine reaches it by.
import type { AddressInfo, Server } from 'node:net';

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
