// What every command receives: the streams, the global options, and lazy access to the API
// client, so that `--help` and local-only commands never read config or load undici.
import type { IO } from './io.js';
import type { ApiClient } from '../api/types.js';
import type { Ui } from '../output/ui.js';

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
  /** Resolved: false for --no-color, NO_COLOR, or no terminal; true for FORCE_COLOR. */
  color: boolean;
  quiet: boolean;
  verbose: boolean;
  timeoutSeconds: number;
  maxRetries: number;
  /** Requests per minute for this process; 0 = unpaced. */
  rate: number;
  yes: boolean;
}

export interface Context {
  io: IO;
  globals: GlobalOptions;
  /** Notices, warnings, spinners and verbose lines on stderr, and colours. */
  ui: Ui;
  /** Which profile, base URL and key this run uses (flag, then environment, then profile). */
  connection: () => Promise<Connection>;
  /** Resolves profile, key and base URL and builds the client on first use. */
  api: () => Promise<ApiClient>;
  /** A client for an explicit connection (auth login checks a key before saving it). */
  connect: (connection: Connection) => Promise<ApiClient>;
  /** Aborted on Ctrl-C: long commands stop, report what they did, and exit 130. */
  signal: AbortSignal;
}
