// Runs one command line against one IO and returns the exit code; never calls process.exit,
// so tests drive the whole CLI in-process with buffers for streams.
import { CommanderError } from 'commander';
import type { ApiClient } from '../api/types.js';
import type { Ui } from '../core/ui.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { Connection, ConnectOptions, Context, FailureReport, GlobalOptions, LineOptions, LineOutcome } from '../commands/context.js';
import type { ConfigCache } from '../config/profiles.js';
import type { ProfileSettings } from '../config/settings.js';
import { CancelError, EXIT, RfsError, UsageError, exitCodeFor } from '../core/errors.js';
import { interruptionText, stopSignalOf } from '../core/interrupt.js';
import { type IO, colorEnabled, withIO } from '../core/io.js';
import { KnownSecrets } from '../core/redact.js';
import { finishRedacting, RedactingStream, StdoutSecrets } from '../core/redact-stream.js';
import { HELP_TOPICS } from '../commands/topics.js';
import { type GlobalFlags, givenGlobals, refuseGlobals, resolveGlobals } from './globals.js';
import { helpArgv } from './help.js';
import { buildProgram, type Dispatch } from './program.js';
import type { Needs } from '../commands/define.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describeError, reportError } from './report.js';
import { asksVerboseVersion, verboseVersion } from './version.js';
import type { JqOutput } from '../output/jq-output.js';
import { offersCursor } from '../commands/notices.js';
import { asksJsonLog, createJsonLog, errorObject, errorSentence, type JsonLog, speakJson } from '../output/json-log.js';

export interface RunOptions {
  /** Aborted on Ctrl-C, SIGTERM and SIGHUP by the process entry point (reason: an Interruption); tests abort it themselves. */
  signal?: AbortSignal;
  /**
   * The process ends when runCli returns (src/main.ts), so the service's connections are left
   * for the operating system to close. Closing them first takes about 2 ms here, half of it
   * waiting on the event loop; tests and other callers that go on running leave this off.
   */
  processExits?: boolean;
  /**
   * The run's one clock: the "now" that output shows (ages, --since, signatures' timestamps),
   * the time that waits are measured in (retries, pacing, spinners, --watch) and the retry
   * jitter; default the system's. Reaches commands as `ctx.clock`.
   */
  clock?: Clock;
  /** A command line run by another command (`ctx.runLine`, cli.md: rfs mcp). */
  nested?: NestedRun;
}

/** What a line run by `ctx.runLine` takes from the run that started it. */
interface NestedRun {
  /** The starting run's connection flags, beneath the line's own. */
  globals: Partial<GlobalFlags>;
  wrapClient: ((client: ApiClient) => ApiClient) | undefined;
  /** Told how the line failed, as the report describes it. */
  onFailure: (report: FailureReport) => void;
}

/** The global flags a line run by `ctx.runLine` takes from the run that started it: which service, and how to reach it. */
const INHERITED_GLOBALS = ['profile', 'baseUrl', 'timeout', 'maxRetries', 'rate'] as const;

export async function runCli(argv: string[], io: IO, options: RunOptions = {}): Promise<number> {
  const topic = argv[0] === 'help' && argv.length === 2 ? HELP_TOPICS[argv[1] ?? ''] : undefined;
  if (topic !== undefined) {
    io.stdout.write(topic);
    return EXIT.OK;
  }
  if (asksVerboseVersion(argv)) {
    io.stdout.write(verboseVersion());
    return EXIT.OK;
  }

  const signal = options.signal ?? new AbortController().signal;
  const clock = options.clock ?? systemClock;
  // The key of every connection this run opens, so that every writer removes it whatever its
  // shape: the Ui (warnings, notices, spinners, verbose lines), result lines and the report.
  const secrets = new KnownSecrets();
  // stdout's own writer: results carry what the server sent (titles, ids, metadata, echoed
  // headers), and the key or a webhook secret of this run must not come out whole there either.
  const stdoutSecrets = new StdoutSecrets();
  const knowSecret = (secret: string): void => {
    secrets.addSecret(secret);
    stdoutSecrets.addSecret(secret);
  };
  // RFS_WEBHOOK_SECRET is a secret this run knows whether or not the command reads it.
  if (io.env.RFS_WEBHOOK_SECRET) knowSecret(io.env.RFS_WEBHOOK_SECRET);
  // So is RFS_API_KEY, whether or not the command opens a connection: `webhooks listen` opens
  // none, and a sender may put the key in what it prints.
  if (io.env.RFS_API_KEY) {
    secrets.add(io.env.RFS_API_KEY);
    stdoutSecrets.addKey(io.env.RFS_API_KEY);
  }
  const stdout = new RedactingStream(io.stdout, stdoutSecrets);
  const redactedIo = withIO(io, { stdout, redactText: (text) => stdoutSecrets.redact(text, true).out });
  let exitCode: number = EXIT.OK;
  let failure: { error: unknown; globals: GlobalOptions | undefined; name: string } | undefined;

  // The config file, read at most once in this run, and only by a command that needs it.
  const configCache: ConfigCache = new Map();
  // `--log-format json` (cli.md, sync): every stderr line of the run is a JSON event, usage
  // errors and warnings before the command starts included.
  const jsonLog =
    options.nested !== undefined || asksJsonLog(argv) ? createJsonLog((line) => io.stderr.write(line), secrets.redact, clock) : undefined;

  // One command's run, in named steps: its session (setUp), the command, the outcome through
  // --jq (throughJq), then the connections closed and the outcome kept for the report below.
  const run: RunState = { io, redactedIo, clock, signal, secrets, stdoutSecrets, knowSecret, configCache, jsonLog, nested: options.nested };
  const dispatch: Dispatch = async (name, execute, needs = {}) => {
    const clients: Promise<ApiClient>[] = [];
    const session: Session = {};
    let outcome: Outcome;
    try {
      outcome = { exitCode: await execute(await setUp(run, program, name, needs, clients, session)) };
    } catch (error) {
      outcome = { error };
    }
    if (session.jq) outcome = await throughJq(session.jq, outcome);
    if (session.jq && session.afterJq) afterJq(session.jq, session.afterJq, outcome, io);
    if (!options.processExits) for (const made of clients) await made.then((c) => c.close()).catch(() => undefined);
    if ('exitCode' in outcome) exitCode = outcome.exitCode;
    else {
      const error = signal.aborted && !(outcome.error instanceof UsageError) ? asCancel(outcome.error, signal) : outcome.error;
      failure = { error, globals: session.globals, name };
    }
  };

  // With JSON logs commander's messages are held, then written as one error event.
  let commanderText = '';
  const writeErr = (text: string): void => {
    if (jsonLog) commanderText += text;
    else io.stderr.write(text);
  };
  const program = buildProgram(dispatch, { writeOut: (text) => io.stdout.write(text), writeErr }, argv);
  try {
    // `rfs help recordings list` is `rfs recordings list --help`; commander's own help command
    // reads one word only.
    const args = argv[0] === 'help' && argv.length > 1 ? helpArgv(program, argv.slice(1), Object.keys(HELP_TOPICS)) : argv;
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      await finishRedacting(stdout);
      const code = commanderExit(error);
      const text = commanderText.trim();
      if (jsonLog && text !== '') {
        const message = text.replace(/^error: /, '');
        jsonLog.emit('error', 'error', `error: ${message}`, { error: { message, code: 'USAGE' }, exitCode: code });
        options.nested?.onFailure({
          line: `error: ${message}`,
          exitCode: code,
          problem: { title: message, code: 'USAGE', exitCode: code },
        });
      }
      return code;
    }
    failure = { error, globals: undefined, name: '' };
  }
  // What stdout held back (a tail that could have begun a secret) is written before the report.
  await finishRedacting(stdout);
  if (failure && isClosedOutput(failure.error)) {
    // The reader of stdout went away (`| head`): what it wanted, it got.
    return EXIT.OK;
  }
  if (failure) {
    const code = exitCodeFor(failure.error);
    options.nested?.onFailure(
      describeError(failure.error, {
        globals: failure.globals,
        name: failure.name,
        redact: secrets.redact,
        stoppedBy: stopSignalOf(signal),
      }),
    );
    if (jsonLog) jsonLog.emit('error', 'error', errorSentence(failure.error), { error: errorObject(failure.error), exitCode: code });
    else
      reportError(io, failure.error, {
        globals: failure.globals,
        name: failure.name,
        redact: secrets.redact,
        stoppedBy: stopSignalOf(signal),
      });
    return code;
  }
  return exitCode;
}

/** What every command of one runCli shares: the streams, the clock, the secrets, the config cache, the JSON log. */
interface RunState {
  io: IO;
  /** stdout through the run's redaction. */
  redactedIo: IO;
  clock: Clock;
  signal: AbortSignal;
  secrets: KnownSecrets;
  stdoutSecrets: StdoutSecrets;
  knowSecret: (secret: string) => void;
  configCache: ConfigCache;
  jsonLog: JsonLog | undefined;
  nested: NestedRun | undefined;
}

/** What setUp has made of one command so far: its global options, once resolved, and its --jq, once compiled. */
interface Session {
  globals?: GlobalOptions;
  jq?: JqOutput;
  /**
   * With --jq, the notices the command gave, for after jq's last line: jq prints after the
   * command has handed it the items, so a notice written when the command ends (more results,
   * a --max-items cut) would come before jq's output (cli.md, Output: the notice comes last).
   */
  afterJq?: { ui: Ui; notices: string[] };
}

/** How a command ended: an exit code, or an error for the report. */
type Outcome = { exitCode: number } | { error: unknown };

/**
 * The command's session: the global flags refused (a standalone command) or resolved with the
 * profile's settings, the stderr Ui, --jq compiled (a bad program sends nothing), and the
 * Context with the API client on first use. `session` gets the global options and --jq as soon
 * as they exist, so that an error after them is reported with them and --jq still ends.
 */
async function setUp(
  run: RunState,
  program: CommandUnknownOpts,
  name: string,
  needs: Needs,
  clients: Promise<ApiClient>[],
  session: Session,
): Promise<Context> {
  const { io, clock, signal, secrets, stdoutSecrets, configCache } = run;
  const flags = { ...inherited(run.nested), ...givenGlobals(program) };
  if (needs.standalone === true) refuseGlobals(program, flags, name);
  // The selected profile's settings stand in for flags not given (cli.md, config); read here,
  // after parsing, so that --help and --version never touch the config file, nor do the
  // commands that use no profile.
  let profile: ProfileSettings | undefined;
  if (needs.standalone !== true) {
    const { readProfileSettings } = await import('../config/profile-settings.js');
    profile = readProfileSettings(flags, io.env, configCache);
  }
  const problems: string[] = [];
  const g = resolveGlobals(flags, io, profile, (p) => problems.push(p));
  session.globals = g;
  const u = await uiFor(run, g, flags.color === false, problems);
  const connect = (connection: Connection, how: ConnectOptions = {}): Promise<ApiClient> => {
    secrets.add(connection.apiKey);
    stdoutSecrets.addKey(connection.apiKey);
    const wrap = run.nested?.wrapClient;
    const made = makeClient(connection, how.check ? checkOptions(g) : g, u, io, clock, signal).then((c) => (wrap ? wrap(c) : c));
    clients.push(made);
    return made;
  };
  let connection: Promise<Connection> | undefined;
  const resolveOnce = (): Promise<Connection> => {
    connection ??= (async () => {
      const { openProfiles } = await import('../config/profiles.js');
      const { resolveConnection } = await import('../config/connection.js');
      return resolveConnection(g, io.env, openProfiles(io.env, { cache: configCache, warn: (m) => u.warn(m) }));
    })();
    return connection;
  };
  let client: Promise<ApiClient> | undefined;
  const ctx: Context = {
    io: run.redactedIo,
    globals: g,
    ui: u,
    signal,
    clock,
    connect,
    knowSecret: run.knowSecret,
    configCache,
    runLine: (line, lineIo, o) => runLine(flags, clock, line, lineIo, o),
    connection: resolveOnce,
    api: () => {
      client ??= resolveOnce().then(connect);
      return client;
    },
  };
  // --jq: compiled before the command runs, so a bad program sends nothing; the engine is
  // loaded only here, never on a run without the flag.
  if (g.jq === undefined) return ctx;
  const { openJqOutput } = await import('../output/jq-output.js');
  const jq = await openJqOutput(run.redactedIo, g.jq, signal);
  session.jq = jq;
  const notices: string[] = [];
  session.afterJq = { ui: u, notices };
  // The program reads JSON whatever -o says: one value per line.
  return { ...ctx, io: jq.io, globals: { ...g, output: 'ndjson' }, ui: { ...u, notice: (message) => void notices.push(message) } };
}

/** The connection flags a nested line takes from the run that started it. */
function inherited(nested: NestedRun | undefined): Partial<GlobalFlags> {
  return nested?.globals ?? {};
}

/** `ctx.runLine`: one more command line, in this process, on its own streams (commands/context.ts). */
async function runLine(flags: Partial<GlobalFlags>, clock: Clock, argv: readonly string[], io: IO, o: LineOptions): Promise<LineOutcome> {
  const globals: Partial<GlobalFlags> = {};
  for (const name of INHERITED_GLOBALS) if (flags[name] !== undefined) Object.assign(globals, { [name]: flags[name] });
  let failure: FailureReport | undefined;
  const exitCode = await runCli([...argv], io, {
    signal: o.signal,
    clock,
    nested: {
      globals,
      wrapClient: o.wrapClient,
      onFailure: (report) => {
        failure = report;
      },
    },
  });
  return failure === undefined ? { exitCode } : { exitCode, failure };
}

/** The stderr Ui of a command: quiet, verbose, colour, the run's redaction; JSON events with --log-format json. */
async function uiFor(run: RunState, g: GlobalOptions, noColor: boolean, problems: readonly string[]): Promise<Ui> {
  const { createUi } = await import('../output/ui-impl.js');
  const u = await createUi(run.io, {
    quiet: g.quiet,
    verbose: g.verbose,
    stdoutColor: g.color,
    stderrColor: colorEnabled(run.io, noColor ? false : undefined, 'stderr'),
    redact: run.secrets.redact,
  });
  if (run.jsonLog) speakJson(u, run.jsonLog);
  for (const problem of problems) u.warn(problem);
  return u;
}

/**
 * A command's outcome through --jq (cli.md, Output), as in a pipe to jq: jq's exit status is the
 * run's (halt, halt_error); a program that failed on an item is the run's error; and a run that
 * jq ended itself (halt closed the command's output) ends with jq's status, not as a failure.
 */
async function throughJq(jq: JqOutput, outcome: Outcome): Promise<Outcome> {
  if ('exitCode' in outcome) {
    try {
      await jq.finish();
    } catch (error) {
      return throughJq(jq, { error });
    }
    return { exitCode: jq.exitStatus() || outcome.exitCode };
  }
  // What was printed before the failure still goes through the program.
  await jq.finish().catch(() => undefined);
  const filterError = jq.failure();
  const closed = isClosedOutput(outcome.error);
  // A program that failed on an item closed the command's output: its error is the one.
  if (filterError !== undefined && (closed || outcome.error === filterError)) return { error: filterError };
  // jq ended the run itself (halt): what the command had left is not wanted.
  const status = jq.exitStatus();
  if (filterError === undefined && status !== undefined && closed) return { exitCode: status };
  return outcome;
}

/**
 * The notices a command gave under --jq, once jq has ended (cli.md, Output: the notice comes
 * last). Each starts a line of its own, and so does the report of a failure, even after jq's own
 * text that ended mid-line (`"x" | halt_error` prints no newline). When the program failed on an
 * item, a "more results" notice would offer the next page's cursor, past the items of the failed
 * page that the program never handled: the report's `resume with` (the failed page's own cursor)
 * is the way on, and the notice is left out.
 */
function afterJq(jq: JqOutput, deferred: NonNullable<Session['afterJq']>, outcome: Outcome, io: IO): void {
  const failed = 'error' in outcome && outcome.error === jq.failure() && outcome.error !== undefined;
  const notices = failed ? deferred.notices.filter((message) => !offersCursor(message)) : deferred.notices;
  if (jq.stderrMidLine() && (notices.length > 0 || 'error' in outcome)) io.stderr.write('\n');
  for (const message of notices) deferred.ui.notice(message);
}

function commanderExit(error: CommanderError): number {
  switch (error.code) {
    case 'commander.helpDisplayed':
    case 'commander.version':
    // `rfs` or `rfs recordings` alone: the overview, as gh prints it, is not a failure.
    case 'commander.help':
      return EXIT.OK;
    default:
      // Unknown command or option, a missing argument, a value outside its choices: commander
      // has printed the message (with a suggestion for a mistyped name); nothing was sent.
      return EXIT.USAGE;
  }
}

function isClosedOutput(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EPIPE';
}

/** What a run stopped by a signal failed with: a CancelError that names the signal (its JSON log's sentence too). */
function asCancel(error: unknown, signal: AbortSignal): CancelError {
  // What the stop meant is the run's own word, when it said one (watch: "watch stopped").
  const stopped = error instanceof CancelError ? error.stopped : undefined;
  const cancel = new CancelError(interruptionText(stopSignalOf(signal)), { cause: error, stopped });
  // An `--all` that was stopped still says where to resume.
  if (error instanceof RfsError && error.resumeCursor !== undefined) cancel.resumeCursor = error.resumeCursor;
  return cancel;
}

/** cli.md, auth: connection checks fail fast (one attempt, at most 10 s). */
const CHECK_TIMEOUT_SECONDS = 10;

function checkOptions(g: GlobalOptions): GlobalOptions {
  // A timeout the user chose is honoured (the advice of a timeout is "raise --timeout"); the
  // default is lowered to the checks' 10 s.
  return { ...g, maxRetries: 0, timeoutSeconds: g.timeoutGiven ? g.timeoutSeconds : Math.min(g.timeoutSeconds, CHECK_TIMEOUT_SECONDS) };
}

async function makeClient(connection: Connection, g: GlobalOptions, ui: Ui, io: IO, clock: Clock, signal: AbortSignal): Promise<ApiClient> {
  const { createApiClient } = await import('../api/client.js');
  const { waitText } = await import('../api/waits.js');
  return createApiClient({
    baseUrl: connection.baseUrl,
    apiKey: connection.apiKey,
    timeoutMs: g.timeoutSeconds * 1000,
    maxRetries: g.maxRetries,
    ratePerMinute: g.rate,
    now: clock.now,
    sleep: clock.sleep,
    random: clock.random,
    log: (line) => ui.verbose(line),
    onWait: (wait) => {
      // cli.md: a wait longer than 2 s says why and for how long (a spinner on a terminal).
      const { ms } = wait;
      if (ms <= 2000) return;
      const maxAttempts = g.maxRetries + 1;
      if (!io.stderrIsTTY) {
        ui.notice(waitText(wait, ms, { maxAttempts, countdown: false }));
        return;
      }
      // The spinner counts down the client's own wait, on the same clock, and stops on Ctrl-C.
      const text = (left: number) => waitText(wait, left, { maxAttempts, countdown: true });
      void ui.spinner(text(ms)).then((s) => countDown(clock, ms, signal, (left) => s.update(text(left))).finally(() => s.stop()));
    },
  });
}

/** Calls `tick` with the time left, once a second (on the second), until `ms` have passed or the signal aborts. */
export async function countDown(clock: Clock, ms: number, signal: AbortSignal, tick: (left: number) => void): Promise<void> {
  const end = clock.now() + ms;
  try {
    for (let left = ms; left > 0; left = end - clock.now()) {
      tick(left);
      await clock.sleep(left % 1000 || 1000, signal);
    }
  } catch {
    // Aborted: the caller stops the spinner.
  }
}
