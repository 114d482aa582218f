// rfs run in-process against a fresh scenario server per test: a private config folder for the
// file, the server started before each test and verified (every queued answer asked for, no
// request unexpected) and closed after it, and runCli on a fake clock so that nothing waits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type FakeTime, fakeTime } from './clock.js';
import { type BufferIO, type BufferIOOptions, bufferIO } from './io.js';
import { type ScenarioServer, startScenarioServer } from './scenario-server.js';

export interface CliOptions extends BufferIOOptions {
  /** RFS_BASE_URL; default the scenario server. */
  baseUrl?: string;
}

export interface ScenarioCli {
  /** This test's server. */
  readonly server: ScenarioServer;
  /** The file's config folder (RFS_CONFIG_DIR). */
  readonly dir: string;
  /** rfs with the file's key and config folder, talking to this test's server. */
  cli(argv: string[], o?: CliOptions): { t: BufferIO; time: FakeTime; run: () => Promise<number> };
}

/** Registers the hooks; call at the top level of a test file. `env` is added to every run's. */
export function scenarioCli(o: { name: string; key: string; env?: NodeJS.ProcessEnv }): ScenarioCli {
  let server: ScenarioServer | undefined;
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), `rfs-${o.name}-`));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    server = await startScenarioServer();
  });
  afterEach(async () => {
    server?.verify();
    await server?.close();
  });
  const must = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} exists only inside a test`);
    return value;
  };
  const scenario: ScenarioCli = {
    get server() {
      return must(server, 'the scenario server');
    },
    get dir() {
      return must(dir, 'the config folder');
    },
    // A plain function, not a method: test files take it off the object (`const cli = scenario.cli`).
    cli: (argv, c = {}) => {
      const { baseUrl, ...io } = c;
      const env = { RFS_CONFIG_DIR: scenario.dir, RFS_API_KEY: o.key, RFS_BASE_URL: baseUrl ?? scenario.server.url, ...o.env, ...c.env };
      const t = bufferIO({ ...io, env });
      const time = fakeTime();
      return { t, time, run: () => runCli(argv, t.io, { clock: time.clock }) };
    },
  };
  return scenario;
}
