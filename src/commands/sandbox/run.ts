// rfs sandbox (sandbox.md, Starting it): checks the flags, starts the local service, prints one
// JSON line on stdout (for programs; not when stdout and stderr are both a terminal) and a banner
// on stderr, and runs until the signal aborts (Ctrl-C or SIGTERM in the caller), then stops
// cleanly: requests in flight finish and state is saved.
import type { Context } from '../context.js';
import { UsageError } from '../../core/errors.js';
import { readNumber } from '../../core/flags.js';
import type { IO } from '../../core/io.js';
import { isLoopbackHost } from '../../core/loopback.js';
import { inspectAddressFlag } from '../../core/listen.js';
import { redactSecrets } from '../../core/redact.js';
import { DEFAULTS, describeRange, RANGES, type RangedOption } from '../../sandbox/config.js';
import type { RunningSandbox, SandboxKeys, SandboxOptions } from '../../sandbox/index.js';
import type { Input } from './index.js';

/** The flags of the declaration; any left out take the sandbox's own defaults. */
export type SandboxFlags = Partial<Input['flags']>;

function numberFlag(flag: string, option: RangedOption, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = readNumber(raw, RANGES[option]);
  if (value === undefined) throw new UsageError(`invalid --${flag}: expected ${describeRange(option)}, got ${JSON.stringify(raw)}`);
  return value;
}

function textFlag(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '' || /[\s\u0000-\u001f]/.test(raw))
    throw new UsageError(`invalid --${flag}: expected a non-empty value without spaces, got ${JSON.stringify(raw)}`);
  return raw;
}

export function sandboxOptions(flags: SandboxFlags): SandboxOptions {
  const options: SandboxOptions = {};
  const set = <K extends keyof SandboxOptions>(key: K, value: SandboxOptions[K] | undefined): void => {
    if (value !== undefined) options[key] = value;
  };
  set('host', textFlag('host', flags.host));
  set('port', numberFlag('port', 'port', flags.port));
  set('seed', textFlag('seed', flags.seed));
  set('recordings', numberFlag('recordings', 'recordings', flags.recordings));
  set('dataFile', textFlag('data', flags.data));
  set('fixtures', textFlag('fixtures', flags.fixtures));
  set('rateLimit', numberFlag('rate-limit', 'rateLimit', flags.rateLimit));
  set('rateWindowSeconds', numberFlag('rate-window', 'rateWindowSeconds', flags.rateWindow));
  set('faults', numberFlag('faults', 'faults', flags.faults));
  set('deliveryAttempts', numberFlag('delivery-attempts', 'deliveryAttempts', flags.deliveryAttempts));
  set('deliveryBackoffMs', numberFlag('delivery-backoff', 'deliveryBackoffMs', flags.deliveryBackoff));
  set('allowPrivateWebhooks', flags.allowPrivateWebhooks);
  set('scenario', flags.scenario);
  if (options.scenario !== undefined && (options.dataFile !== undefined || options.fixtures !== undefined))
    throw new UsageError('--scenario makes its own state: it cannot be combined with --data or --fixtures');
  return options;
}

const KEY_NOTES: Record<keyof SandboxKeys, string> = {
  admin: 'main (Pro): all scopes',
  readOnly: 'main: read:recordings',
  writeOnly: 'main: write:recordings',
  webhooks: 'main: manage:webhooks',
  otherWorkspace: 'other (Enterprise): all scopes, its own recordings',
  noSubscription: 'starter (Starter): every call is 403 SUBSCRIPTION_REQUIRED',
  revoked: 'main: revoked, every call is 401',
};

function banner(sandbox: RunningSandbox, options: SandboxOptions): string {
  const names = Object.keys(KEY_NOTES) as (keyof SandboxKeys)[];
  const width = Math.max(...names.map((n) => n.length));
  const keys = names.map((name) => `  ${name.padEnd(width)}  ${sandbox.apiKeys[name]}  ${KEY_NOTES[name]}`);
  const rate =
    options.rateLimit === 0
      ? 'off'
      : `${options.rateLimit ?? DEFAULTS.rateLimit} per ${options.rateWindowSeconds ?? DEFAULTS.rateWindowSeconds} s per workspace`;
  return [
    `rfs sandbox is listening on ${sandbox.baseUrl}`,
    `  state: ${options.dataFile ?? 'in memory'} · rate limit: ${rate} · faults: ${options.faults ?? DEFAULTS.faults}`,
    '',
    'API keys:',
    ...keys,
    '',
    'Log in with the admin key:',
    `  echo '${sandbox.apiKeys.admin}' | RFS_BASE_URL=${sandbox.baseUrl} rfs auth login --with-key`,
    '',
    `Control API (no key): ${sandbox.baseUrl}/_sandbox/…  ·  Ctrl-C to stop`,
    '',
    ...scenarioLines(sandbox),
  ].join('\n');
}

/** What --scenario incident holds, and how its failing receiver recovers. */
function scenarioLines(sandbox: RunningSandbox): string[] {
  const scenario = sandbox.scenario;
  if (scenario === null) return [];
  const width = Math.max(...scenario.receivers.map((r) => r.name.length));
  const state = (name: string, mode: string): string =>
    name === 'deleted' ? 'down; its subscription was deleted' : mode === 'ok' ? 'answers 2xx' : mode === 'fail' ? 'failing' : 'down';
  return [
    `Scenario ${scenario.name}: 300+ deliveries whose attempts span the last two hours; receivers run by the sandbox:`,
    ...scenario.receivers.map((r) => `  ${r.name.padEnd(width)}  ${r.subscriptionId}  ${r.url}  ${state(r.name, r.mode)}`),
    // All four ways it fails, as --help and docs/incidents.md name them (the refused connections are in its history).
    'The failing receiver fails with 500s, 503s with Retry-After, timeouts and refused connections; its newest deliveries are still retrying.',
    'Make it recover (new attempts and replays then succeed):',
    `  curl -X POST -H 'content-type: application/json' -d '{"mode":"ok"}' ${sandbox.baseUrl}/_sandbox/receivers/failing`,
    '',
  ];
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export interface SandboxCommandOptions {
  sandbox: SandboxOptions;
  /** --allow-remote-control: binding beyond loopback is meant, so no warning. */
  allowRemoteControl: boolean;
  /** --inspect: where the inspector serves (sandbox.md, Inspecting it); undefined without. */
  inspect: { host: string; port: number } | undefined;
}

export function options({ flags }: Input): SandboxCommandOptions {
  return commandOptions(flags);
}

function commandOptions(flags: SandboxFlags): SandboxCommandOptions {
  return {
    sandbox: sandboxOptions(flags),
    allowRemoteControl: flags.allowRemoteControl === true,
    inspect: flags.inspect === undefined ? undefined : inspectAddressFlag(flags.inspect),
  };
}

export async function run(ctx: Context, options: SandboxCommandOptions): Promise<number> {
  return start(ctx.io, options, ctx.signal);
}

/** Checks the flags, then serves on `io` until the signal aborts. */
export async function serve(io: IO, flags: SandboxFlags, signal: AbortSignal): Promise<number> {
  return start(io, commandOptions(flags), signal);
}

/**
 * The control API has no key by design (sandbox.md): bound beyond loopback, anyone on the
 * network can reset the state, inject faults or add recordings. Said loudly, not refused:
 * sandbox.md lets --host bind elsewhere (a container, a VM) and scripts may rely on it.
 */
function remoteControlWarning(host: string): string {
  return [
    `warning: --host ${host} is not a loopback address: the sandbox's control API (/_sandbox/…, no key) can be reached`,
    '  from the network, and anyone who reaches it can reset the state, inject faults or add recordings.',
    '  Bind 127.0.0.1 (the default), or give --allow-remote-control to say this is meant.',
    '',
  ].join('\n');
}

async function start(io: IO, command: SandboxCommandOptions, signal: AbortSignal): Promise<number> {
  const options = command.sandbox;
  // Log lines quote what callers sent (delivery errors): never a key or a secret on stderr.
  options.log = (line) => io.stderr.write(`sandbox: ${redactSecrets(line)}\n`);
  const { startSandbox, SandboxStartError } = await import('../../sandbox/index.js');
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox(options);
  } catch (error) {
    if (error instanceof SandboxStartError) {
      throw new UsageError(error.message, {
        cause: error,
        hint: /EADDRINUSE/.test(error.message) ? '--port 0 picks a free port' : undefined,
      });
    }
    throw error;
  }
  // The JSON line is for programs, which read stdout through a pipe or a file. A person at a
  // terminal reads the banner, which has the same facts: printing both showed every key twice.
  if (!(io.stdoutIsTTY && io.stderrIsTTY)) io.stdout.write(`${JSON.stringify({ baseUrl: sandbox.baseUrl, apiKeys: sandbox.apiKeys })}\n`);
  io.stderr.write(banner(sandbox, options));
  const host = options.host ?? DEFAULTS.host;
  if (!command.allowRemoteControl && !isLoopbackHost(host)) io.stderr.write(remoteControlWarning(host));
  let inspector: { url: string; close(): Promise<void> } | undefined;
  if (command.inspect !== undefined) {
    // Loaded only with --inspect (src/inspector/).
    const { startSandboxInspector } = await import('../../inspector/sandbox.js');
    try {
      inspector = await startSandboxInspector(sandbox, command.inspect);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    io.stderr.write(`inspector on ${inspector.url}\n`);
  }
  await aborted(signal);
  io.stderr.write('rfs sandbox: stopping…\n');
  await inspector?.close();
  await sandbox.close();
  io.stderr.write('rfs sandbox: stopped\n');
  return 0;
}
