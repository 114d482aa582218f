// What a run of rfs knows before any command code loads: the resolved global options, and the
// session (streams, stderr voice, cancellation) that every layer below the commands may use.
// Part of the base layer: it imports nothing of rfs but the base.
import type { Clock } from './clock.js';
import type { IO } from './io.js';
import type { Ui } from './ui.js';

export interface Connection {
  /** The profile the values came from (or would be saved to). */
  profile: string;
  baseUrl: string;
  apiKey: string;
}

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface GlobalOptions {
  profile: string | undefined;
  baseUrl: string | undefined;
  /** Resolved: the flag, or table on a terminal stdout and json otherwise. */
  output: OutputFormat;
  /** True when -o or --json was given on the command line (not the terminal default, the environment or a profile). */
  outputFlagged?: boolean;
  /** Resolved: false for --no-color, NO_COLOR, or no terminal; true for FORCE_COLOR. */
  color: boolean;
  quiet: boolean;
  verbose: boolean;
  timeoutSeconds: number;
  /** True when the timeout came from a flag, the environment or the profile, not the default. */
  timeoutGiven?: boolean;
  maxRetries: number;
  /** Requests per minute for this process; 0 = unpaced. */
  rate: number;
  yes: boolean;
  /** The selected profile's default --provider for `file` and `sync` (`rfs config set provider`). */
  provider?: string | undefined;
  /** --jq: a jq program for every JSON value printed (cli.md, Output); undefined without it. */
  jq?: string | undefined;
}

/** The streams, options and cancellation of one run: what batches, prompts and passes need. */
export interface Session {
  io: IO;
  globals: GlobalOptions;
  /** Notices, warnings, spinners and verbose lines on stderr, and colours. */
  ui: Ui;
  /** Aborted on Ctrl-C: long commands stop, report what they did, and exit 130. */
  signal: AbortSignal;
  /** Every wait of the run (retries, spinners, --watch intervals) goes through it. */
  clock: Clock;
}
