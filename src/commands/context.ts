// What every command receives: the session, and lazy access to the API client, so that `--help`
// and local-only commands never read config or open a connection.
import type { ApiClient } from '../api/types.js';
import type { ConfigCache } from '../config/profiles.js';
import type { Connection, Session } from '../core/context.js';
import type { IO } from '../core/io.js';

export type { Connection, GlobalOptions, OutputFormat } from '../core/context.js';
export { OUTPUT_FORMATS } from '../core/context.js';

export interface Context extends Session {
  /** Which profile, base URL and key this run uses (flag, then environment, then profile). */
  connection: () => Promise<Connection>;
  /** Resolves profile, key and base URL and builds the client on first use. */
  api: () => Promise<ApiClient>;
  /** The config file as this run read it: pass it to openProfiles, so that the file is read once per run. */
  configCache: ConfigCache;
  /** A client for an explicit connection (auth login checks a key before saving it). */
  connect: (connection: Connection, options?: ConnectOptions) => Promise<ApiClient>;
  /** A webhook secret this run read: from now on it is redacted on stdout and stderr like the key. */
  knowSecret: (secret: string) => void;
  /**
   * Runs another command line of rfs in this process, on streams of its own (`rfs mcp`'s
   * tools): the same profile and connection flags as this run (`--profile`, `--base-url`,
   * `--timeout`, `--max-retries`, `--rate`), stdout's redaction, stderr as JSON events (the
   * schema of `--log-format json`), and how it ended. Set by the CLI (cli/run.ts).
   */
  runLine?: (argv: readonly string[], io: IO, options: LineOptions) => Promise<LineOutcome>;
}

export interface LineOptions {
  signal: AbortSignal;
  /** Every API client the line makes, as its command will use it (`rfs mcp` keeps its budget there). */
  wrapClient?: (client: ApiClient) => ApiClient;
}

/** How a command line run by `runLine` ended. */
export interface LineOutcome {
  exitCode: number;
  /** When it failed: what the error report says (cli/report.ts), in parts, redacted. */
  failure?: FailureReport;
}

export interface FailureReport {
  /** `error: …` (or the interruption's words), as the report's first line. */
  line: string;
  /** The report's line of advice, where one helps. */
  advice?: string;
  resumeCursor?: string;
  exitCode: number;
  /** The problem-details object the report prints with -o json. */
  problem: Record<string, unknown>;
}

export interface ConnectOptions {
  /**
   * A connection check (auth login, auth status, doctor; cli.md, auth): one attempt and a
   * 10-second timeout, so an unreachable service is reported within seconds, not after retries.
   */
  check?: boolean;
}
