// A terminal whose rfs talks to a scenario server, for a file of tmux tests: made before its
// tests, every queued answer verified after each, all stopped (and the folder removed) after
// all of them. Call it inside the file's describe.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type ScenarioServer, startScenarioServer } from './scenario-server.js';
import { startTerminal, type Terminal, terminalEnv } from './tmux.js';

export interface ScenarioTerminal {
  /** The terminal's home: rfs's config folder is under it; files a test runs on go here. */
  readonly home: string;
  readonly term: Terminal;
  readonly server: ScenarioServer;
}

/** `prepare` writes what the tests read into the home before the terminal starts. */
export function scenarioTerminal(prefix: string, apiKey: string, prepare?: (home: string) => void): ScenarioTerminal {
  const made: { home?: string; term?: Terminal; server?: ScenarioServer } = {};
  beforeAll(async () => {
    made.home = mkdtempSync(join(tmpdir(), prefix));
    prepare?.(made.home);
    made.server = await startScenarioServer();
    made.term = await startTerminal(terminalEnv(made.home, { RFS_API_KEY: apiKey, RFS_BASE_URL: made.server.url }));
  });
  afterEach(() => made.server?.verify());
  afterAll(async () => {
    await made.term?.stop();
    await made.server?.close();
    if (made.home) rmSync(made.home, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`scenarioTerminal: the ${what} is used before beforeAll made it`);
    return value;
  };
  return {
    get home() {
      return ready(made.home, 'home');
    },
    get term() {
      return ready(made.term, 'terminal');
    },
    get server() {
      return ready(made.server, 'server');
    },
  };
}
