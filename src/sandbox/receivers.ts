// The webhook receivers a scenario runs itself (sandbox.md, Rehearsing an incident): small HTTP
// servers on 127.0.0.1, one per name, each in a mode the control API switches
// (POST /_sandbox/receivers/:name). They stand for the integrator's endpoints, so the sandbox's
// own delivery worker sends to them over real sockets and its attempt log shows real errors.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from '../core/listen.js';

export const RECEIVER_MODES = ['ok', 'fail', 'down'] as const;
/** ok: 200; fail: in turn 500, 503 with Retry-After, no answer (a timeout), a reset connection; down: not listening (refused). */
export type ReceiverMode = (typeof RECEIVER_MODES)[number];

/** What `fail` answers, in turn: each failure an operator meets, so errors differ from one attempt to the next. */
const FAILURES = ['500', '503', 'hang', '500', '503', 'reset'] as const;
/** The Retry-After a failing receiver's 503 carries, in seconds. */
export const FAILING_RETRY_AFTER = '120';

export interface ReceiverView {
  name: string;
  url: string;
  mode: ReceiverMode;
  /** Requests it took in since it started (a `down` receiver takes none). */
  received: number;
}

class Receiver {
  private readonly server: Server;
  /** Requests answered by no answer at all (`fail`'s timeout): ended when the receiver stops or goes down. */
  private readonly held = new Set<ServerResponse>();
  private turn = 0;
  received = 0;
  port = 0;

  constructor(
    readonly name: string,
    public mode: ReceiverMode,
  ) {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/${this.name}`;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.received++;
    req.resume();
    if (this.mode === 'ok') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      return;
    }
    const failure = FAILURES[this.turn++ % FAILURES.length];
    if (failure === 'hang') {
      // No answer: the sender's timeout ends it (or this receiver's stop).
      this.held.add(res);
      res.on('close', () => this.held.delete(res));
    } else if (failure === 'reset') req.socket.destroy();
    else if (failure === '503') res.writeHead(503, { 'retry-after': FAILING_RETRY_AFTER }).end('unavailable');
    else res.writeHead(500).end('internal error');
  }

  async start(): Promise<void> {
    const bound: AddressInfo = await listenOn(this.server, '127.0.0.1', this.port);
    this.port = bound.port;
    if (this.mode === 'down') await this.stopListening();
  }

  private stopListening(): Promise<void> {
    for (const res of this.held) res.destroy();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }

  /** Down closes the port, so a connection is refused; back up, it listens on the same port again. */
  async setMode(mode: ReceiverMode): Promise<void> {
    const wasDown = this.mode === 'down';
    this.mode = mode;
    if (mode === 'down' && !wasDown) await this.stopListening();
    else if (mode !== 'down' && wasDown) await listenOn(this.server, '127.0.0.1', this.port);
  }

  async stop(): Promise<void> {
    if (this.server.listening) await this.stopListening();
  }

  view(): ReceiverView {
    return { name: this.name, url: this.url, mode: this.mode, received: this.received };
  }
}

export class Receivers {
  private readonly byName = new Map<string, Receiver>();

  /** Starts one receiver per name, each on a free port of 127.0.0.1. */
  static async start(modes: Record<string, ReceiverMode>): Promise<Receivers> {
    const receivers = new Receivers();
    try {
      for (const [name, mode] of Object.entries(modes)) {
        const receiver = new Receiver(name, mode);
        receivers.byName.set(name, receiver);
        await receiver.start();
      }
    } catch (error) {
      await receivers.stop();
      throw error;
    }
    return receivers;
  }

  get(name: string): ReceiverView | undefined {
    return this.byName.get(name)?.view();
  }

  list(): ReceiverView[] {
    return [...this.byName.values()].map((r) => r.view());
  }

  /** Undefined when there is no receiver of that name. */
  async setMode(name: string, mode: ReceiverMode): Promise<ReceiverView | undefined> {
    const receiver = this.byName.get(name);
    if (!receiver) return undefined;
    await receiver.setMode(mode);
    return receiver.view();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.byName.values()].map((r) => r.stop()));
  }
}
