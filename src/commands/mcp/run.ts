// rfs mcp (docs/agents.md): a Model Context Protocol server on stdin and stdout. Each tool is a
// command (tools.ts); a call runs that command line in this process (`ctx.runLine`) with
// `-o json`, on streams of its own, and answers what it printed as fields: the command's JSON,
// its notices and warnings, its exit code, and when it failed the report's parts (the error,
// its line of advice). Every request of every call holds a slot of one budget (api/budget.ts),
// so that an agent cannot starve the integration; a call that finds no free slot is answered at
// once with when one frees, rather than left to outlast the client's timeout.
import { Readable, Writable } from 'node:stream';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_BUDGET, MAX_BUDGET, RequestBudget, type Slot, withinBudget } from '../../api/budget.js';
import type { ApiClient, AttemptGate } from '../../api/types.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { numberFlag } from '../../core/flags.js';
import type { IO } from '../../core/io.js';
import { scrubSecretLike } from '../../core/redact.js';
import type { Context, FailureReport } from '../context.js';
import type { Input } from './index.js';
import { messageLines } from './framing.js';
import type { CallToolResult, JSONRPCMessage, McpTool } from './sdk.js';
import { commandLine, makeTools, TOOL_SPECS, type Tool } from './tools.js';

export interface McpOptions {
  allowWrite: boolean;
  budget: number;
  /** The program: the tools are made from its tree. */
  root: CommandUnknownOpts;
}

export function options({ flags, command }: Input, ctx: Context): McpOptions {
  const root = command.parent;
  if (root === null) throw new Error('rfs mcp is declared under the program');
  // stdout carries the protocol alone: a jq program over it would break every message.
  if (ctx.globals.jq !== undefined)
    throw new UsageError('rfs mcp takes no --jq: its stdout is the protocol', { hint: 'each answer is JSON already' });
  return {
    allowWrite: flags.allowWrite === true,
    budget: numberFlag('--budget', flags.budget, { min: 1, max: MAX_BUDGET, integer: true }) ?? DEFAULT_BUDGET,
    root,
  };
}

const INSTRUCTIONS = `rfs: the Recording Filing Service's command-line client. Each tool runs one rfs command with -o json and answers its JSON ("result"), its notices (more pages, bounds, what a filter may hide) and its exit code (cli.md's codes; 8 from deliveries_summary means some deliveries are FAILED). A failed call answers "error" with the exit code and a line of advice. Calls share a budget of requests a minute; each answer says how many requests its call sent ("requests"), and a call refused for the budget says when to try again (retryAfterSeconds).`;

/** The longest message read (the SDK's own default): a longer line is refused and skipped. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** One call's answer, before it is scrubbed and sent. */
interface Answer {
  argv?: string[];
  exitCode: number;
  /** The requests the call sent to the service, retries included: what it took of the budget. */
  requests: number;
  result?: unknown;
  notices?: string[];
  warnings?: string[];
  error?: { message: string; advice?: string; resumeCursor?: string; problem?: Record<string, unknown>; retryAfterSeconds?: number };
}

export async function run(ctx: Context, o: McpOptions): Promise<number> {
  if (ctx.runLine === undefined) throw new Error('rfs mcp needs the CLI to run its tools');
  const runLine: NonNullable<Context['runLine']> = ctx.runLine;
  const tools = makeTools(
    o.root,
    TOOL_SPECS.filter((s) => o.allowWrite || !s.write),
  );
  const sdk = await import('./sdk.js');
  const budget = new RequestBudget(o.budget, ctx.clock);
  const stopCounting = budget.listen();
  // Calls being answered: a client that closes stdin after its last request still gets their answers.
  const inFlight = new Set<Promise<Answer>>();
  // The ids dry runs of this session listed: the only ones deliveries_replay takes.
  const listedForReplay = new Set<string>();

  const server = new sdk.Server(
    { name: 'rfs', version: RFS_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: tools.map(describe) }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      const write = TOOL_SPECS.some((s) => s.write && (s.name ?? s.path.join('_')) === request.params.name);
      throw new sdk.McpError(
        sdk.ErrorCode.InvalidParams,
        write
          ? `${request.params.name} changes something: rfs mcp offers it only when started with --allow-write`
          : `no tool ${request.params.name}: tools/list names them`,
      );
    }
    const answering = call(tool, request.params.arguments ?? {}, extra.signal);
    inFlight.add(answering);
    try {
      return toResult(await answering);
    } finally {
      inFlight.delete(answering);
    }
  });

  async function call(tool: Tool, input: Record<string, unknown>, signal: AbortSignal): Promise<Answer> {
    let argv: string[];
    try {
      argv = commandLine(tool, input, ['-o', 'json']);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      return usage(error.message, `the fields of ${tool.name}: tools/list`);
    }
    if (tool.spec.write && tool.spec.path.join(' ') === 'deliveries replay') {
      const ids = (input['delivery-id'] as string[]).filter((id) => !listedForReplay.has(id));
      if (ids.length > 0)
        return usage(
          `not listed by a dry run in this session: ${ids.join(', ')}`,
          'list the FAILED deliveries with deliveries_replay_dry_run first, then replay the ids it listed',
        );
    }
    let slot: Slot | undefined;
    if (tool.spec.local !== true) {
      slot = budget.tryTake();
      if (slot === undefined) return spent(budget);
    }
    const held = slot;
    let spare = held;
    const sent = { requests: 0 };
    const wrapClient = (client: ApiClient) => {
      const first = spare;
      spare = undefined;
      return counting(withinBudget(client, budget, first), sent);
    };
    try {
      const out = collector();
      const err = collector();
      const outcome = await runLine(argv, lineIo(ctx.io, out.stream, err.stream), {
        signal: AbortSignal.any([signal, ctx.signal]),
        wrapClient,
      });
      const events = jsonLines(err.text());
      const answer: Answer = {
        argv: ['rfs', ...argv],
        exitCode: outcome.exitCode,
        requests: sent.requests,
        result: parseOutput(out.text()),
        notices:
          tool.spec.notices !== undefined ? [...tool.spec.notices] : events.filter((e) => e.event === 'notice').map((e) => String(e.msg)),
        warnings: events.filter((e) => e.event === 'warning').map((e) => String(e.msg)),
      };
      if (outcome.failure !== undefined) answer.error = errorOf(outcome.failure);
      if (outcome.failure === undefined && tool.spec.fixed?.includes('--dry-run')) {
        for (const row of Array.isArray(answer.result) ? answer.result : []) {
          const id = (row as { id?: unknown } | null)?.id;
          if (typeof id === 'string') listedForReplay.add(id);
        }
      }
      return answer;
    } finally {
      held?.give();
    }
  }

  // The SDK's transport reads the lines that are messages; the others are answered here (framing.ts).
  const lines = messageLines({
    isMessage: (value) => sdk.JSONRPCMessageSchema.safeParse(value).success,
    // JSON-RPC's null id, which the SDK's type of an error answer leaves out (it has none to give).
    refuse: (refusal) => void transport.send(refusal as unknown as JSONRPCMessage),
    maxLineBytes: MAX_MESSAGE_BYTES,
  });
  const transport = new sdk.StdioServerTransport(lines, ctx.io.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  // The client closing its end of stdin (once the calls it sent are answered), stdin failing,
  // or Ctrl-C/SIGTERM (at once: the calls under way are cancelled), ends the server.
  const close = (): void => void server.close();
  lines.once('end', () => void drain(inFlight).then(close));
  ctx.io.stdin.once('error', close);
  ctx.io.stdin.pipe(lines);
  ctx.signal.addEventListener('abort', close, { once: true });
  try {
    await closed;
  } finally {
    stopCounting();
    ctx.signal.removeEventListener('abort', close);
  }
  return EXIT.OK;
}

/**
 * Until no call is being answered: the SDK starts a request's handler a microtask after its
 * line is read and sends the answer a few after the handler returns, so each look waits for the
 * event loop's next turn first.
 */
async function drain(inFlight: Set<Promise<unknown>>): Promise<void> {
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  await turn();
  while (inFlight.size > 0) {
    await Promise.allSettled([...inFlight]);
    await turn();
  }
}

function describe(tool: Tool): McpTool {
  const write = tool.spec.write;
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: {
      title: `rfs ${tool.spec.path.join(' ')}${tool.spec.fixed?.includes('--dry-run') ? ' --all-failed --dry-run' : ''}`,
      readOnlyHint: !write,
      destructiveHint: write,
      // Filing twice adds a second filing, a replay sends again, a create makes another subscription.
      idempotentHint: !write || tool.spec.path.join(' ') === 'webhooks delete',
      openWorldHint: tool.spec.local !== true,
    },
  };
}

/** The answer as MCP carries it: the fields, and the same as JSON text for clients that read only text. No key or secret in either. */
function toResult(answer: Answer): CallToolResult {
  const text = scrubSecretLike(JSON.stringify(answer));
  return {
    content: [{ type: 'text', text }],
    structuredContent: JSON.parse(text) as Record<string, unknown>,
    isError: answer.error !== undefined,
  };
}

function usage(message: string, advice: string): Answer {
  return {
    exitCode: EXIT.USAGE,
    requests: 0,
    error: { message: `error: ${message}`, advice, problem: { title: message, code: 'USAGE', exitCode: EXIT.USAGE } },
  };
}

function spent(budget: RequestBudget): Answer {
  const seconds = Math.ceil(budget.nextFreeIn() / 1000);
  const message = `rfs mcp's budget of ${budget.current()} requests a minute is spent`;
  return {
    exitCode: EXIT.TRANSIENT,
    requests: 0,
    error: {
      message: `error: ${message}`,
      advice: `try again in ${seconds} s; the budget leaves the rest of the workspace's 120 requests a minute to the integration (rfs mcp --budget, at most ${MAX_BUDGET})`,
      retryAfterSeconds: seconds,
      problem: { title: message, code: 'BUDGET_SPENT', exitCode: EXIT.TRANSIENT },
    },
  };
}

function errorOf(failure: FailureReport): NonNullable<Answer['error']> {
  return {
    message: failure.line,
    ...(failure.advice !== undefined ? { advice: failure.advice } : {}),
    ...(failure.resumeCursor !== undefined ? { resumeCursor: failure.resumeCursor } : {}),
    problem: failure.problem,
  };
}

/** `client`, counting in `sent` each attempt it sends, retries included (the client waits on `beforeAttempt` before each). */
function counting(client: ApiClient, sent: { requests: number }): ApiClient {
  const count =
    (before: AttemptGate | undefined): AttemptGate =>
    async (signal) => {
      await before?.(signal);
      sent.requests += 1;
    };
  return {
    baseUrl: client.baseUrl,
    redactedKey: client.redactedKey,
    request: (o) => client.request({ ...o, beforeAttempt: count(o.beforeAttempt) }),
    requestRaw: (o) => client.requestRaw({ ...o, beforeAttempt: count(o.beforeAttempt) }),
    close: () => client.close(),
  };
}

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** A call's streams: no terminal, nothing on stdin (no prompt can be shown; write tools confirm with --yes). */
function lineIo(io: IO, stdout: Writable, stderr: Writable): IO {
  return {
    stdin: Readable.from([]),
    stdout,
    stderr,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    columns: 80,
    env: io.env,
  };
}

/** The command's JSON: one value (-o json), or nothing. */
function parseOutput(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  try {
    return JSON.parse(trimmed);
  } catch {
    // Several values, one a line (a batch's result lines): each one.
    return trimmed.split('\n').map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        return line;
      }
    });
  }
}

/** The events of stderr (the schema of --log-format json). */
function jsonLines(text: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      events.push({ event: 'warning', msg: line });
    }
  }
  return events;
}
