// What every command receives: the session, and lazy access to the API client, so that `--help`
// and local-only commands never read config or open a connection.
import type { ApiClient } from '../api/types.js';
import type { ConfigCache } from '../config/profiles.js';
import type { Connection, Session } from '../core/context.js';

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
}

export interface ConnectOptions {
  /**
   * A connection check (auth login, auth status, doctor; cli.md, auth): one attempt and a
   * 10-second timeout, so an unreachable service is reported within seconds, not after retries.
   */
  check?: boolean;
}
