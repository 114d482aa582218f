// The network checks of rfs doctor, below HTTP: the name resolves, the port answers, the TLS
// certificate is valid for the name. Each gives up after the connection check's 10 s (cli.md,
// auth) and is never retried; a socket is closed as soon as it has answered.
import { promises as dns } from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import { EXIT } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';
import type { Context } from '../context.js';
import type { Report } from './report.js';

const CHECK_TIMEOUT_MS = 10_000;

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return sanitize(e.code ? `${e.code}: ${e.message}` : String(e.message ?? error));
}

/** Rejects after the check timeout; a real timer (unref'd), as the API client's timeouts are. */
function within<T>(ms: number, what: string, work: (done: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${ms / 1000} s (${what})`));
    }, ms);
    timer.unref();
  });
  return Promise.race([work(controller.signal), timeout]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  });
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function portOf(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** The address to connect to, or undefined when the name does not resolve. */
export async function checkDns(ctx: Context, url: URL, report: Report): Promise<string | undefined> {
  const host = hostOf(url);
  if (net.isIP(host) !== 0) {
    report.ok('dns', `${sanitize(host)} is an address: nothing to resolve`);
    return host;
  }
  try {
    const found = await within(CHECK_TIMEOUT_MS, 'DNS', () => dns.lookup(host, { all: true }), ctx.signal);
    const addresses = found.map((a) => a.address);
    report.ok('dns', `${sanitize(host)} → ${sanitize(addresses.join(', '))}`);
    return addresses[0];
  } catch (error) {
    report.fail('dns', `${sanitize(host)} does not resolve (${describe(error)})`, EXIT.TRANSIENT);
    return undefined;
  }
}

function connected(socket: net.Socket, event: 'connect' | 'secureConnect', signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once(event, () => resolve());
    socket.once('error', fail);
    signal.addEventListener('abort', () => fail(new Error('stopped')), { once: true });
  });
}

export async function checkTcp(ctx: Context, url: URL, address: string, report: Report): Promise<boolean> {
  const port = portOf(url);
  const started = ctx.clock.now();
  const socket = net.connect({ host: address, port });
  try {
    await within(CHECK_TIMEOUT_MS, 'TCP', (done) => connected(socket, 'connect', done), ctx.signal);
    report.ok('tcp', `${sanitize(address)} port ${port} accepts connections (${Math.round(ctx.clock.now() - started)} ms)`);
    return true;
  } catch (error) {
    report.fail('tcp', `${sanitize(address)} port ${port} is not reachable (${describe(error)})`, EXIT.TRANSIENT);
    return false;
  } finally {
    socket.destroy();
  }
}

export async function checkTls(ctx: Context, url: URL, address: string, report: Report): Promise<boolean> {
  if (url.protocol !== 'https:') {
    report.skip('tls', 'plain http to loopback: no TLS');
    return true;
  }
  const host = hostOf(url);
  const socket = tls.connect({
    host: address,
    port: portOf(url),
    // The certificate must be valid for the name in the base URL, not for the address.
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    rejectUnauthorized: true,
  });
  try {
    await within(CHECK_TIMEOUT_MS, 'TLS', (done) => connected(socket, 'secureConnect', done), ctx.signal);
    const cert = socket.getPeerCertificate();
    const until = cert.valid_to ? `, valid until ${new Date(cert.valid_to).toISOString().slice(0, 10)}` : '';
    report.ok('tls', `certificate valid for ${sanitize(host)}${until} (${socket.getProtocol() ?? 'TLS'})`);
    return true;
  } catch (error) {
    report.fail('tls', `the TLS handshake with ${sanitize(host)} failed (${describe(error)})`, EXIT.TRANSIENT);
    return false;
  } finally {
    socket.destroy();
  }
}
