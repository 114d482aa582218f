// The terminal path of `deliveries watch` (cli.md, deliveries): the board of board.ts,
// drawn by render.ts in the alternate screen and redrawn in place after every poll, every key
// and every resize, at the terminal's size of that moment. Keys come from stdin in raw mode:
// ↑/↓ select, `r` asks on the bottom line before replaying a subscription's FAILED deliveries,
// `q` quits (0), Ctrl-C quits (130). The terminal is given back on every way out: the end of
// the run, a thrown error (before its report), and an exception nobody caught.
//
// ansi-escapes (the escape sequences) is loaded here only, by import(): README, "The incident
// kit", says why this library; test/build/startup-path.test.ts keeps it off other commands.
import { channel } from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';
import { emitKeypressEvents } from 'node:readline';
import type { ReadStream, WriteStream } from 'node:tty';
import { ATTEMPT_CHANNEL, WAIT_CHANNEL, type WaitMessage } from '../../../api/client.js';
import { replayDelivery } from '../../../api/webhooks.js';
import { ApiError, CancelError, EXIT, NetworkError } from '../../../core/errors.js';
import { sanitize } from '../../../core/sanitize.js';
import { writeOut } from '../../../output/list-writer.js';
import { interruptionText, stopSignalOf } from '../../../core/interrupt.js';
import type { Context } from '../../context.js';
import { startDeadline, withSignal } from '../poll-limits.js';
import { Board } from './board.js';
import { paceText, WATCH_STOPPED, WatchPoller } from './poll.js';
import { renderView, type ViewSize } from './render.js';
import type { WatchOptions } from './run.js';

interface Key {
  name?: string;
  ctrl?: boolean;
  sequence?: string;
}

/** The terminal of the view: its size now, and its resizes. */
export interface ViewTerminal {
  size(): ViewSize;
  onResize(listener: () => void): () => void;
}

function processTerminal(): ViewTerminal {
  const out = process.stdout as WriteStream;
  return {
    size: () => ({ columns: out.columns || 80, rows: out.rows || 24 }),
    onResize(listener) {
      out.on('resize', listener);
      return () => out.off('resize', listener);
    },
  };
}

type Ending = { code: number } | { error: unknown };

/** How often the view's ages are brought up to the clock between polls: they count seconds. */
const AGE_TICK_MS = 1000;

export async function runScreen(ctx: Context, o: WatchOptions, terminal: ViewTerminal = processTerminal()): Promise<number> {
  const esc = await import('ansi-escapes');
  const { clock, signal, io } = ctx;
  // Every request of the view, its replays too, within the budget.
  const started = clock.now();
  const deadline = o.maxTimeMs === undefined ? Number.POSITIVE_INFINITY : started + o.maxTimeMs;
  // --max-time ends the view at once, a request in flight included.
  const limit = startDeadline(clock, deadline);
  const poller = new WatchPoller(ctx, withSignal(await ctx.api(), limit.signal), o);
  const client = poller.client;
  const board = new Board(started);
  let selected = 0;
  let line: string | undefined = 'polling…';
  let question: { subscriptionId: string; ids: string[] } | undefined;
  let replaying = false;
  let incomplete: string | undefined;
  let hidden = false;
  // While a poll's request is tried again: "retrying: HTTP 429, attempt 3", on the top line.
  let retrying: string | undefined;
  let lastStatus: number | null = null;

  // How the run ends: the first of a key (q, Ctrl-C), the deadline, Ctrl-C from outside, or an error.
  let end: (ending: Ending) => void = () => undefined;
  const ended = new Promise<Ending>((resolve) => {
    end = resolve;
  });
  const stop = new AbortController();
  let wake = new AbortController();
  void ended.then(() => stop.abort());
  // Requests stop on Ctrl-C and when the view ends.
  const requests = AbortSignal.any([signal, stop.signal, limit.signal]);
  const onAbort = (): void =>
    end({ error: new CancelError(`stopped watching: ${interruptionText(stopSignalOf(signal))}`, { stopped: WATCH_STOPPED }) });
  signal.addEventListener('abort', onAbort, { once: true });

  let drawn = '';
  /** Draws the view; `onlyIfChanged`: not when it would draw what is on the screen already. */
  const draw = (onlyIfChanged = false): void => {
    // Once the view has ended, nothing more is drawn: a poll answered late would draw on the main screen.
    if (stop.signal.aborted) return;
    const size = terminal.size();
    const pace = retrying === undefined ? paceText(poller.current) : `${retrying}; ${paceText(poller.current)}`;
    const view = { board: board.current, selected, line, pace, incomplete, hidden, now: clock.now() };
    const lines = renderView(view, size);
    let text = esc.beginSynchronizedOutput;
    lines.forEach((l, i) => {
      text += `${esc.cursorTo(0, i)}${l}${esc.eraseEndLine}`;
    });
    if (lines.length < size.rows) text += `${esc.cursorTo(0, lines.length)}${esc.eraseDown}`;
    if (onlyIfChanged && text === drawn) return;
    drawn = text;
    io.stdout.write(text + esc.endSynchronizedOutput);
  };
  // The failures' ages move with the clock, not with the polls (which can be a minute apart):
  // the view is drawn again each second, when that changes what it shows.
  const tick = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      await clock.sleep(AGE_TICK_MS, stop.signal).catch(() => undefined);
      draw(true);
    }
  };
  const guard =
    (f: (...args: never[]) => void) =>
    (...args: never[]): void => {
      try {
        f(...args);
      } catch (error) {
        end({ error });
      }
    };

  const redraw = guard(draw);
  // The client says each attempt's status, then each wait before a retry: the screen shows it at once.
  const onAttempt = (message: unknown): void => {
    lastStatus = (message as { status: number | null }).status;
    if (retrying === undefined || lastStatus === null || lastStatus >= 300) return;
    retrying = undefined;
    redraw();
  };
  const onWait = (message: unknown): void => {
    const wait = message as WaitMessage;
    if (wait.kind !== 'retry') return;
    retrying = `retrying: ${lastStatus === null ? sanitize(wait.reason) : `HTTP ${lastStatus}`}, attempt ${wait.attempt}`;
    redraw();
  };
  const attempts = channel(ATTEMPT_CHANNEL);
  const waits = channel(WAIT_CHANNEL);
  attempts.subscribe(onAttempt);
  waits.subscribe(onWait);

  const replay = async (subscriptionId: string, ids: string[]): Promise<void> => {
    replaying = true;
    let done = 0;
    let failed = 0;
    try {
      for (const id of ids) {
        if (stop.signal.aborted) return;
        line = `replaying ${done + failed + 1} of ${ids.length} FAILED deliveries of ${sanitize(subscriptionId)}…`;
        draw();
        try {
          await replayDelivery(client, id, requests);
          done += 1;
        } catch (error) {
          if (!(error instanceof ApiError || error instanceof NetworkError)) throw error;
          failed += 1;
        }
      }
      line = `replayed ${done} FAILED deliveries of ${sanitize(subscriptionId)}${failed > 0 ? `; ${failed} refused` : ''}`;
      wake.abort();
      draw();
    } finally {
      replaying = false;
    }
  };

  const onKey = guard((_text: string | undefined, key: Key | undefined) => {
    if (key === undefined) return;
    if (key.ctrl === true && key.name === 'c')
      return end({ error: new CancelError('stopped watching (Ctrl-C)', { stopped: WATCH_STOPPED }) });
    const rows = board.current.rows;
    if (question !== undefined) {
      const asked = question;
      question = undefined;
      if (key.name === 'y') {
        void replay(asked.subscriptionId, asked.ids).catch((error: unknown) => end({ error }));
      } else {
        line = 'nothing replayed';
      }
      return draw();
    }
    if (key.name === 'q') return end({ code: EXIT.OK });
    if (key.name === 'up') selected = Math.max(0, selected - 1);
    else if (key.name === 'down') selected = Math.min(Math.max(0, rows.length - 1), selected + 1);
    else if (key.name === 'r') {
      const row = rows[selected];
      if (row === undefined || replaying) return;
      const id = sanitize(row.subscriptionId);
      if (row.url === null) line = `subscription ${id} was deleted: its deliveries cannot be replayed`;
      else if (row.failedIds.length === 0) line = `no FAILED deliveries of ${id}`;
      else {
        question = { subscriptionId: row.subscriptionId, ids: [...row.failedIds] };
        const n = row.counts.FAILED.lowerBound ? `${row.failedIds.length} (of ${row.counts.FAILED.n}+)` : String(row.failedIds.length);
        line = `replay ${n} FAILED deliveries of ${id}? (y/N)`;
      }
    } else return;
    if (key.name !== 'r') line = undefined;
    draw();
  });

  const stdin = io.stdinIsTTY ? (io.stdin as ReadStream) : undefined;
  const keys = stdin !== undefined && typeof stdin.setRawMode === 'function';
  let restored = false;
  const leave = `${esc.cursorShow}${esc.exitAlternativeScreen}`;
  const restoreNow = (): void => {
    if (restored) return;
    restored = true;
    if (keys) stdin.setRawMode(false);
    // Synchronous: this runs where nothing asynchronous will (process exit, an uncaught exception).
    writeSync(1, leave);
  };
  process.on('exit', restoreNow);
  process.on('uncaughtExceptionMonitor', restoreNow);
  const offResize = terminal.onResize(guard(draw));
  const onKeypress = onKey as (text: string | undefined, key: Key | undefined) => void;
  // Nothing else draws on the terminal meanwhile: the client's wait spinner and notices wait.
  const release = ctx.ui.hold?.() ?? (() => undefined);
  await writeOut(io.stdout, `${esc.enterAlternativeScreen}${esc.cursorHide}`);
  if (keys) {
    emitKeypressEvents(stdin);
    stdin.setRawMode(true);
    stdin.on('keypress', onKeypress);
    stdin.resume();
  }

  const poll = async (): Promise<void> => {
    for (;;) {
      try {
        const polled = await poller.poll(requests, true).finally(() => {
          retrying = undefined;
        });
        if (polled.live !== undefined) board.update(polled.slices, polled.changes, polled.live, polled.at, o.subscriptionId, polled.events);
        incomplete = polled.incomplete;
        hidden = polled.hidden !== undefined;
        selected = Math.min(selected, Math.max(0, board.current.rows.length - 1));
        if (line === 'polling…' || (line?.startsWith('poll failed') ?? false)) line = undefined;
      } catch (error) {
        if (stop.signal.aborted || signal.aborted) return;
        if (limit.passed()) return end({ code: EXIT.OK });
        if (!(error instanceof ApiError || error instanceof NetworkError)) throw error;
        line = `poll failed: ${sanitize(error.message)}; trying again`;
      }
      draw();
      const left = deadline - clock.now();
      if (left <= 0) return end({ code: EXIT.OK });
      wake = new AbortController();
      const waiting = AbortSignal.any([stop.signal, wake.signal, limit.signal]);
      await clock.sleep(Math.min(poller.waitMs(), left), waiting).catch(() => undefined);
      if (stop.signal.aborted) return;
      if (limit.passed()) return end({ code: EXIT.OK });
    }
  };

  try {
    draw();
    void poll().catch((error: unknown) => end({ error }));
    void tick().catch((error: unknown) => end({ error }));
    const ending = await ended;
    if ('error' in ending) throw ending.error;
    return ending.code;
  } finally {
    stop.abort();
    limit.dispose();
    attempts.unsubscribe(onAttempt);
    waits.unsubscribe(onWait);
    signal.removeEventListener('abort', onAbort);
    offResize();
    if (keys) {
      stdin.off('keypress', onKeypress);
      stdin.setRawMode(false);
      stdin.pause();
    }
    if (!restored) {
      restored = true;
      await writeOut(io.stdout, leave);
    }
    process.off('exit', restoreNow);
    process.off('uncaughtExceptionMonitor', restoreNow);
    release();
    poller.close();
  }
}
