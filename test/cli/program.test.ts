// The command tree: built whole for every run (each command declares itself in its folder and
// loads its code only when it runs), and each command's code receives options checked and typed
// from what commander parsed. argv in, options out: nothing is sent.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram, type Dispatch } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run.js';
import type { Context } from '../../src/commands/context.js';
import { options as fileOptions } from '../../src/commands/file/run.js';
import { options as listOptions } from '../../src/commands/recordings/list/run.js';
import { options as replayOptions } from '../../src/commands/deliveries/replay/run.js';
import { options as syncOptions } from '../../src/commands/sync/run.js';
import { options as listenOptions } from '../../src/commands/webhooks/listen/run.js';
import { UsageError } from '../../src/core/errors.js';
import { bufferIO } from '../helpers/io.js';
import { fakeTime } from '../helpers/clock.js';

/** What options() reads of the run: its clock (the filters' durations count back from it). */
const atNoon = { clock: fakeTime(Date.parse('2026-11-22T12:00:00Z')).clock } as unknown as Context;

/** Parses argv with the real tree; returns the command it names and what commander made of it. */
async function parse(argv: string[]): Promise<{ name: string; args: unknown; flags: unknown; command: CommandUnknownOpts }> {
  let name = '';
  const program = buildProgram(
    async (n) => {
      name = n;
    },
    { writeOut: () => undefined, writeErr: () => undefined },
  );
  await program.parseAsync(argv, { from: 'user' });
  let command: CommandUnknownOpts = program;
  for (const word of argv) command = command.commands.find((c) => c.name() === word || c.aliases().includes(word)) ?? command;
  return { name, args: command.processedArgs, flags: command.opts(), command };
}

// The tests read the tree generically; the commands themselves get these types from their declarations.
// biome-ignore lint/suspicious/noExplicitAny: the tree is read generically here; commands get their types from their declarations
const asInput = (parsed: Awaited<ReturnType<typeof parse>>): any => parsed;
const ctx = { io: bufferIO().io, clock: fakeTime().clock } as Context;

describe('the command tree', () => {
  it('dispatches the command argv names, whatever global flags come before or after it', async () => {
    expect((await parse(['recordings', 'list', '--limit', '5'])).name).toBe('recordings list');
    expect((await parse(['-o', 'json', 'recording', 'ls', '--all', '-q'])).name).toBe('recordings list');
    expect((await parse(['--profile', 'ci', 'file', 'rec_1'])).name).toBe('file');
    expect((await parse(['delivery', 'replay', 'dlv_1', '--json'])).name).toBe('deliveries replay');
  });

  it('builds a new tree for each run, so one run leaves nothing behind for the next', async () => {
    const ran: string[] = [];
    const dispatch: Dispatch = async (name) => void ran.push(name);
    const first = buildProgram(dispatch);
    await first.parseAsync(['-q', 'sync', '--exec', 'x', '--provider', 'p'], { from: 'user' });
    const second = buildProgram(dispatch);
    expect(second).not.toBe(first);
    expect(second.opts().quiet).toBeUndefined();
    expect(ran).toEqual(['sync']);
  });
});

// A run's tree holds only the noun its command line starts with (start-up: bench/RESULTS.md).
describe('the tree of one run', () => {
  const quiet = { writeOut: () => undefined, writeErr: () => undefined };
  const names = (program: CommandUnknownOpts): string[] => program.commands.map((c) => c.name()).filter((n) => !n.startsWith('__'));

  it('holds only the noun argv starts with, for every noun but completion and mcp, which read the whole tree', () => {
    const all = names(buildProgram(async () => undefined, quiet));
    expect(all).toContain('recordings');
    for (const noun of all) {
      const narrowed = names(buildProgram(async () => undefined, quiet, [noun, '--help']));
      expect(narrowed, noun).toEqual(noun === 'completion' || noun === 'mcp' ? all : [noun]);
    }
    // Anything else first: the whole tree.
    for (const first of ['-q', 'recording', 'help', 'recordngs'])
      expect(names(buildProgram(async () => undefined, quiet, [first]))).toEqual(all);
  });

  it('gives the same help and the same errors as the whole tree', async () => {
    const run = async (argv: string[]): Promise<[number, string, string]> => {
      const t = bufferIO();
      const code = await runCli(argv, t.io);
      return [code, t.stdout(), t.stderr()];
    };
    expect(await run(['recordings', 'list', '--help'])).toEqual(await run(['help', 'recordings', 'list']));
    expect(await run(['deliveries', '--help'])).toEqual(await run(['help', 'deliveries']));
    const [code, , stderr] = await run(['recordings', 'lst']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command 'lst'/);
    expect(stderr).toMatch(/list/);
  });
});

describe("a command's run receives typed, checked options", () => {
  it('recordings list: the declared defaults, numbers as numbers', async () => {
    expect(listOptions(asInput(await parse(['recordings', 'list'])), ctx)).toEqual({
      status: 'COMPLETED',
      syncState: 'unsynced',
      updatedSince: undefined,
      include: undefined,
      limit: 50,
      cursor: undefined,
      all: false,
      maxItems: undefined,
    });
    const given = listOptions(
      asInput(await parse(['recordings', 'list', '--limit', ' 7 ', '--all', '--max-items', '20', '--updated-since', '2h'])),
      ctx,
    );
    expect(given).toMatchObject({ limit: 7, all: true, maxItems: 20, updatedSince: '2026-11-22T12:05:00.000Z' });
  });

  it('sync: seconds become milliseconds, --listen implies --watch, and a bad number is a UsageError', async () => {
    const o = syncOptions(
      asInput(await parse(['sync', '--exec', './crm.sh', '--provider', 'crm', '--listen', '0', '--interval', '5'])),
      ctx,
    );
    expect(o).toMatchObject({
      command: './crm.sh',
      provider: 'crm',
      listenPort: 0,
      watch: true,
      intervalMs: 5000,
      execTimeoutMs: 300_000,
      dryRun: false,
    });
    const bad = await parse(['sync', '--exec', 'x', '--provider', 'p', '--interval', '1.5']);
    expect(() => syncOptions(asInput(bad), ctx)).toThrow(
      new UsageError('invalid --interval "1.5": expected a whole number from 1 to 86400'),
    );
  });

  it('webhooks listen: the declared port and tolerance, as numbers', async () => {
    expect(listenOptions(asInput(await parse(['webhooks', 'listen'])))).toEqual({
      host: '127.0.0.1',
      port: 8787,
      toleranceSeconds: 300,
      forwardTo: undefined,
      secretEnv: undefined,
      secretFile: undefined,
    });
  });

  it('deliveries replay: ids from the variadic argument; flags that do not go together are refused', async () => {
    expect(replayOptions(asInput(await parse(['deliveries', 'replay', 'dlv_1', 'dlv_2'])), atNoon)).toEqual({
      ids: ['dlv_1', 'dlv_2'],
      allFailed: false,
      subscriptionId: undefined,
      dryRun: false,
      max: undefined,
      wait: false,
      waitTimeoutSeconds: 300,
      // --wait polls within a budget like watch's: 12 requests a minute by default (cli.md).
      budget: 12,
      filter: {},
    });
    expect(() => replayOptions(asInput({ args: [[]], flags: { dryRun: true } } as never), atNoon)).toThrow(
      'give one or more delivery ids, or --all-failed',
    );
  });

  it('file: one filing, or a batch read from --from', async () => {
    expect(await fileOptions(asInput(await parse(['file', 'rec_1', '--provider', 'crm', '--external-id', 'C-1'])), ctx)).toEqual({
      id: 'rec_1',
      filing: { provider: 'crm', externalId: 'C-1', externalUrl: undefined, filedAt: undefined, metadata: undefined },
    });
    expect(await fileOptions(asInput(await parse(['file', '--from', '-', '--provider', 'crm', '--fail-fast'])), ctx)).toEqual({
      from: '-',
      defaultProvider: 'crm',
      failFast: true,
    });
  });
});
