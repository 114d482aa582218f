// The batch runner on its own: a fake item function and in-memory streams, no HTTP. What it
// must keep for every batch: a result line per item, a refused key stops with its exit code,
// Ctrl-C ends with 130 naming what was in flight, exit 8 when any item failed.
import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/batch/progress.js';
import { ResultWriter, type ItemResult } from '../../src/batch/results.js';
import { runBatch, type ItemWork } from '../../src/batch/runner.js';
import type { Session } from '../../src/core/context.js';
import { CancelError } from '../../src/core/errors.js';
import type { Spinner, Ui } from '../../src/core/ui.js';
import { fakeTime } from '../helpers/clock.js';
import { bufferIO } from '../helpers/io.js';

/** A Ui whose spinners write what happens to them into `events`. */
function fakeUi(events: string[]): Ui {
  return {
    stdoutColor: false,
    stderrColor: false,
    quiet: false,
    verboseEnabled: false,
    notice: () => undefined,
    say: () => undefined,
    warn: () => undefined,
    verbose: () => undefined,
    redact: (text) => text,
    spinner: async (text): Promise<Spinner> => {
      events.push(`spin ${text}`);
      return { update: (next) => events.push(`text ${next}`), stop: () => events.push('stop') };
    },
  };
}

function setup(events: string[] = []) {
  const t = bufferIO();
  const controller = new AbortController();
  const session: Session = {
    io: t.io,
    globals: {
      profile: undefined,
      baseUrl: undefined,
      output: 'ndjson',
      color: false,
      quiet: false,
      verbose: false,
      timeoutSeconds: 30,
      maxRetries: 3,
      rate: 0,
      yes: false,
    },
    ui: fakeUi(events),
    signal: controller.signal,
    clock: fakeTime().clock,
  };
  const writer = new ResultWriter(session, (r) => ({ label: String(r.id), done: 'done' }));
  // The stdout of bufferIO is a stream: a line written shows up once the stream has passed it on.
  const lines = async (): Promise<ItemResult[]> => {
    await new Promise((resolve) => setImmediate(resolve));
    return t
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as ItemResult);
  };
  return { t, controller, signal: controller.signal, writer, lines, events };
}

const ok = (id: string): ItemResult => ({ id, ok: true });
const refused = (id: string, status: number): ItemResult => ({
  id,
  ok: false,
  error: { status, code: status === 401 ? 'UNAUTHORIZED' : 'INSUFFICIENT_SCOPE', title: 'refused', requestId: null },
});
const broken = (id: string): ItemResult => ({ id, ok: false, error: { status: 500, code: 'INTERNAL', title: 'broken', requestId: null } });

/** Resolves when the signal aborts, as a request cut short by Ctrl-C does (with a failure). */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

describe('runBatch', () => {
  it('writes one result line per item in order, none for a skipped item, and exits 0 when all succeed', async () => {
    const s = setup();
    const report = await runBatch({
      items: ['a', 'skip', 'b'],
      work: async (id) => (id === 'skip' ? undefined : ok(id)),
      writer: s.writer,
      signal: s.signal,
    });
    expect(await s.lines()).toEqual([ok('a'), ok('b')]);
    expect(report).toMatchObject({ end: { how: 'finished' }, done: ['a', 'skip', 'b'], ok: 2, failed: 0, exitCode: 0 });
  });

  it('tells onResult of every result line as it is written, in the order of the lines', async () => {
    const s = setup();
    const told: unknown[] = [];
    await runBatch({
      items: ['a', 'skip', 'b', 'c'],
      work: async (id) => (id === 'skip' ? undefined : id === 'b' ? broken(id) : ok(id)),
      writer: s.writer,
      signal: s.signal,
      concurrency: 2,
      onResult: (r) => told.push([r.id, r.ok, s.writer.ok + s.writer.failed]),
    });
    // Each one told just before its own line is written (the writer has counted the ones before).
    expect(told).toEqual([
      ['a', true, 0],
      ['b', false, 1],
      ['c', true, 2],
    ]);
    expect((await s.lines()).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it('goes on past failed items, counts them, and exits 8', async () => {
    const s = setup();
    const report = await runBatch({
      items: ['a', 'b', 'c'],
      work: async (id) => (id === 'b' ? broken(id) : ok(id)),
      writer: s.writer,
      signal: s.signal,
    });
    expect((await s.lines()).map((r) => [r.id, r.ok])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
    expect(report).toMatchObject({ end: { how: 'finished' }, ok: 2, failed: 1, exitCode: 8 });
  });

  it.each([401, 403])('stops after the item whose key was refused (%i), reports it, and exits 3', async (status) => {
    const s = setup();
    const ran: string[] = [];
    const report = await runBatch({
      items: ['a', 'b', 'c'],
      work: async (id) => {
        ran.push(id);
        return id === 'b' ? refused(id, status) : ok(id);
      },
      writer: s.writer,
      signal: s.signal,
    });
    expect(ran).toEqual(['a', 'b']);
    expect((await s.lines()).map((r) => r.id)).toEqual(['a', 'b']);
    expect(report.end).toMatchObject({ how: 'stopped', because: 'key-refused', after: 'b', error: { status } });
    expect(report).toMatchObject({ done: ['a', 'b'], ok: 1, failed: 1, exitCode: 3 });
  });

  it('goes on past a refused key when told to, and exits 8', async () => {
    const s = setup();
    const report = await runBatch({
      items: ['a', 'b'],
      work: async (id) => refused(id, 401),
      writer: s.writer,
      signal: s.signal,
      stopWhenKeyRefused: false,
    });
    expect(report).toMatchObject({ end: { how: 'finished' }, failed: 2, exitCode: 8 });
  });

  it('with fail-fast stops after the first failed item and exits 8', async () => {
    const s = setup();
    const report = await runBatch({
      items: ['a', 'b', 'c'],
      work: async (id) => (id === 'b' ? broken(id) : ok(id)),
      writer: s.writer,
      signal: s.signal,
      failFast: true,
    });
    expect((await s.lines()).map((r) => r.id)).toEqual(['a', 'b']);
    expect(report.end).toMatchObject({ how: 'stopped', because: 'fail-fast', after: 'b' });
    expect(report.exitCode).toBe(8);
  });

  it('on Ctrl-C during an item in flight names it, writes no result for it, and exits 130', async () => {
    const s = setup();
    const work: ItemWork<string> = async (id, run) => {
      run.doing(`sending ${id}`);
      if (id === 'b') {
        setTimeout(() => s.controller.abort(), 5);
        await untilAborted(s.signal);
        return broken(id); // the request failed because it was cut short
      }
      return ok(id);
    };
    const report = await runBatch({ items: ['a', 'b', 'c'], work, writer: s.writer, signal: s.signal });
    expect(await s.lines()).toEqual([ok('a')]);
    expect(report.end).toEqual({ how: 'interrupted', inFlight: [{ item: 'b', doing: 'sending b' }] });
    expect(report).toMatchObject({ done: ['a'], ok: 1, failed: 0, exitCode: 130 });
  });

  it('on Ctrl-C during an item that sent nothing yet reports nothing in flight', async () => {
    const s = setup();
    const work: ItemWork<string> = async (id) => {
      if (id === 'b') {
        s.controller.abort();
        throw new CancelError('interrupted');
      }
      return ok(id);
    };
    const report = await runBatch({ items: ['a', 'b', 'c'], work, writer: s.writer, signal: s.signal });
    expect(report.end).toEqual({ how: 'interrupted', inFlight: [] });
    expect(report).toMatchObject({ done: ['a'], exitCode: 130 });
  });

  it('keeps the result of an item that succeeded as Ctrl-C came, and starts no other', async () => {
    const s = setup();
    const ran: string[] = [];
    const work: ItemWork<string> = async (id, run) => {
      ran.push(id);
      run.doing(`sending ${id}`);
      if (id === 'a') s.controller.abort();
      return ok(id);
    };
    const report = await runBatch({ items: ['a', 'b'], work, writer: s.writer, signal: s.signal });
    expect(ran).toEqual(['a']);
    expect(await s.lines()).toEqual([ok('a')]);
    expect(report.end).toEqual({ how: 'interrupted', inFlight: [] });
    expect(report).toMatchObject({ done: ['a'], exitCode: 130 });
  });

  it('on Ctrl-C while waiting for the next item ends at once with what was done', async () => {
    const s = setup();
    async function* slowSource(): AsyncGenerator<string> {
      yield 'a';
      setTimeout(() => s.controller.abort(), 5);
      await untilAborted(s.signal);
      throw new Error('the read was aborted');
    }
    const report = await runBatch({ items: slowSource(), work: async (id) => ok(id), writer: s.writer, signal: s.signal });
    expect(report).toMatchObject({ end: { how: 'interrupted', inFlight: [] }, done: ['a'], exitCode: 130 });
  });

  it('ends with the error of an item that throws without Ctrl-C, and stops the spinner', async () => {
    const s = setup();
    const progress = await Progress.start(fakeUi(s.events), 'working');
    const run = runBatch({
      items: ['a'],
      work: async () => Promise.reject(new Error('journal not writable')),
      writer: s.writer,
      signal: s.signal,
      progress,
    });
    await expect(run).rejects.toThrow('journal not writable');
    expect(s.events.at(-1)).toBe('stop');
  });

  it('takes the spinner off the screen for each result line and stops it at the end', async () => {
    const s = setup();
    const progress = await Progress.start(fakeUi(s.events), 'starting');
    const work: ItemWork<string> = async (id) => {
      progress.update(`doing ${id}`);
      s.events.push(`stdout so far: ${s.t.stdout().length}`);
      return ok(id);
    };
    await runBatch({ items: ['a', 'b'], work, writer: s.writer, signal: s.signal, progress });
    const line = `${JSON.stringify(ok('a'))}\n`.length;
    expect(s.events).toEqual([
      'spin starting',
      'text doing a',
      'stdout so far: 0',
      'stop',
      'spin doing a',
      'text doing b',
      `stdout so far: ${line}`,
      'stop',
      'spin doing b',
      'stop',
    ]);
  });
});

describe('runBatch with concurrency', () => {
  /** Work whose items end when the test says so, recording how many run at once. */
  function gated() {
    const gates = new Map<string, () => void>();
    let running = 0;
    let most = 0;
    const startedOrder: string[] = [];
    const work: ItemWork<string> = async (id, run) => {
      startedOrder.push(id);
      running += 1;
      most = Math.max(most, running);
      run.doing(`working on ${id}`);
      await new Promise<void>((resolve) => gates.set(id, resolve));
      running -= 1;
      return id.startsWith('bad') ? broken(id) : ok(id);
    };
    const open = async (id: string): Promise<void> => {
      for (let i = 0; i < 50 && !gates.has(id); i++) await new Promise((r) => setImmediate(r));
      const gate = gates.get(id);
      if (!gate) throw new Error(`${id} never started`);
      gate();
    };
    return { work, open, startedOrder, most: () => most };
  }

  it('runs up to n items at once, takes the next as one ends, and writes each line whole in the order they end', async () => {
    const s = setup();
    const g = gated();
    const items = ['a', 'b', 'bad-c', 'd', 'e'];
    const running = runBatch({ items, work: g.work, writer: s.writer, signal: s.signal, concurrency: 3 });
    await g.open('b');
    await g.open('d');
    await g.open('a');
    await g.open('e');
    await g.open('bad-c');
    const report = await running;
    expect(g.most()).toBe(3);
    expect(g.startedOrder).toEqual(['a', 'b', 'bad-c', 'd', 'e']);
    expect((await s.lines()).map((r) => r.id)).toEqual(['b', 'd', 'a', 'e', 'bad-c']);
    expect(s.t.stdout().endsWith('\n')).toBe(true);
    expect(report).toMatchObject({ end: { how: 'finished' }, done: ['b', 'd', 'a', 'e', 'bad-c'], ok: 4, failed: 1, exitCode: 8 });
  });

  it('takes items from an async source one at a time, never asking it twice at once', async () => {
    const s = setup();
    let asking = 0;
    let overlapped = false;
    async function* source(): AsyncGenerator<string> {
      for (const id of ['a', 'b', 'c', 'd']) {
        asking += 1;
        if (asking > 1) overlapped = true;
        await new Promise((r) => setImmediate(r));
        asking -= 1;
        yield id;
      }
    }
    const report = await runBatch({ items: source(), work: async (id) => ok(id), writer: s.writer, signal: s.signal, concurrency: 4 });
    expect(overlapped).toBe(false);
    expect(report).toMatchObject({ end: { how: 'finished' }, ok: 4 });
  });

  it('after a refused key takes no new item, lets the running ones finish and report, and exits 3', async () => {
    const s = setup();
    const ran: string[] = [];
    const report = await runBatch({
      items: ['a', 'b', 'c', 'd'],
      work: async (id) => {
        ran.push(id);
        await new Promise((r) => setImmediate(r));
        return id === 'a' ? refused(id, 401) : ok(id);
      },
      writer: s.writer,
      signal: s.signal,
      concurrency: 2,
    });
    expect(ran).toEqual(['a', 'b']);
    expect((await s.lines()).map((r) => r.id)).toEqual(['a', 'b']);
    expect(report).toMatchObject({ end: { how: 'stopped', because: 'key-refused', after: 'a' }, ok: 1, failed: 1, exitCode: 3 });
  });

  it('on Ctrl-C names every item in flight, waits for all of them, and takes no new one', async () => {
    const s = setup();
    const ran: string[] = [];
    const report = await runBatch({
      items: ['a', 'b', 'c'],
      work: async (id, run) => {
        ran.push(id);
        run.doing(`running ${id}`);
        if (id === 'b') setImmediate(() => s.controller.abort());
        await untilAborted(s.signal);
        throw new CancelError('interrupted');
      },
      writer: s.writer,
      signal: s.signal,
      concurrency: 2,
    });
    expect(ran).toEqual(['a', 'b']);
    expect(report.end).toEqual({
      how: 'interrupted',
      inFlight: [
        { item: 'a', doing: 'running a' },
        { item: 'b', doing: 'running b' },
      ],
    });
    expect(report.exitCode).toBe(130);
  });

  it('refuses a concurrency below 1', async () => {
    const s = setup();
    await expect(runBatch({ items: [], work: async () => undefined, writer: s.writer, signal: s.signal, concurrency: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
