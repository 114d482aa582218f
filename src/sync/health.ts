// /healthz and /metrics of a long-running sync (cli.md, sync, --metrics): healthy while the last
// pass ended without a pass-level error, within two intervals. A monitor (or systemd through a
// timer) that sees 503 knows why from the body, and since when from /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { boundUrl, ListenError, listenOn } from '../core/listen.js';
import { boundToLoopback, hostRule } from '../core/local-guard.js';
import { sanitize } from '../core/sanitize.js';
import type { PassEnd, SyncObserver } from './observer.js';

export interface Verdict {
  healthy: boolean;
  reason: string;
}

export class Health implements SyncObserver {
  private last: { at: number; error?: string; interrupted: boolean } | undefined;
  private passing: { pass: number; since: number } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  verdict(): Verdict {
    const now = this.clock.now();
    const running = this.passing ? `; pass ${this.passing.pass} has been running for ${seconds(now - this.passing.since)}` : '';
    if (this.last === undefined) return { healthy: false, reason: `no pass has ended yet${running}` };
    const ago = now - this.last.at;
    if (this.last.error !== undefined) return { healthy: false, reason: `the last pass failed ${seconds(ago)} ago: ${this.last.error}` };
    if (this.last.interrupted) return { healthy: false, reason: 'the last pass was interrupted: rfs sync is stopping' };
    if (ago > 2 * this.intervalMs) {
      return {
        healthy: false,
        reason: `the last pass ended ${seconds(ago)} ago, more than two intervals (${seconds(2 * this.intervalMs)})${running}`,
      };
    }
    return { healthy: true, reason: `ok: the last pass ended ${seconds(ago)} ago without error` };
  }

  passStarted(pass: number): void {
    this.passing = { pass, since: this.clock.now() };
  }

  passEnded(_pass: number, end: PassEnd): void {
    this.passing = undefined;
    this.last = { at: this.clock.now(), interrupted: end.interrupted, ...(end.error === undefined ? {} : { error: end.error }) };
  }

  journalOpened(): void {}
  listed(): void {}
  commandStarted(): () => void {
    return () => undefined;
  }
  result(): void {}
  parked(): void {}
  async close(): Promise<void> {}
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

export interface Address {
  host: string;
  port: number;
}

/** `--metrics <[host:]port>`: 127.0.0.1 unless a host is given; `[::1]:9464` for IPv6. */
export function parseAddress(flag: string, text: string): Address {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) {
    throw new UsageError(`${flag} must be a port or host:port (e.g. 9464 or 0.0.0.0:9464), not "${text}"`);
  }
  const host = m[1] === undefined ? '127.0.0.1' : m[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

export interface MonitorServer {
  url: string;
  close(): Promise<void>;
}

/** Serves GET /metrics (the text `metrics` gives) and GET /healthz (200 or 503, the reason as text). */
export async function startMonitorServer(
  address: Address,
  health: Health,
  metrics: () => Promise<{ contentType: string; body: string }>,
): Promise<MonitorServer> {
  // Bound to loopback (the default), only requests addressed to this machine by a loopback name
  // are answered: a web page whose name is made to resolve to 127.0.0.1 (DNS rebinding) would
  // otherwise read the metrics and /healthz's last error. Bound beyond loopback (a pod, scraped by
  // its IP or a service name), any Host is answered: the network is the boundary there.
  const acceptsHost = boundToLoopback(address.host) ? hostRule(address.host) : undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (acceptsHost !== undefined && !acceptsHost(req.headers.host)) {
      res
        .writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
        .end('bound to loopback, this server answers only requests addressed to localhost or a loopback address\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      const v = health.verdict();
      res.writeHead(v.healthy ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      // The reason can hold the server's problem title: one line, every control character escaped
      // (curl on a terminal, a monitor that reads lines).
      res.end(`${sanitize(v.reason)}\n`);
      return;
    }
    if (path === '/metrics') {
      metrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (error: unknown) =>
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${error instanceof Error ? error.message : 'error'}\n`),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: try /metrics or /healthz\n');
  });
  let bound: AddressInfo;
  try {
    bound = await listenOn(server, address.host, address.port);
  } catch (error) {
    if (error instanceof ListenError) throw new UsageError(`--metrics: ${error.message}`, { cause: error.cause });
    throw error;
  }
  return {
    // The address really bound (0.0.0.0 is every interface, not loopback).
    url: boundUrl(bound),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
