// rfs sandbox as a library: startSandbox() runs the whole service of api.md on a local port.
// The command (src/commands/sandbox/run.ts) and the project's tests start it through here.
import { App } from './app.js';
import { resolveConfig, type SandboxConfig, type SandboxOptions } from './config.js';
import { SandboxControl } from './control-client.js';
import { FixtureError, checkFixtures, readFixtureFile, type Fixtures } from './fixtures.js';
import type { SandboxKeys } from './keys.js';
import type { AddressInfo } from 'node:net';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { removeStaleTemporaryFiles } from '../core/atomic-write.js';
import { ListenError, listenOn, urlHost } from '../core/listen.js';
import { applyJournal, journalPath, readJournal } from './journal.js';
import { DataFileError, readSnapshot, withSeed, type StoredState } from './persistence.js';
import { randomSeed, seedMaterial } from './random.js';
import { createSandboxServer } from './server.js';
import { defaultResolver, firstRefusedUrl } from './url-guard.js';
import { Receivers, type ReceiverView } from './receivers.js';
import { INCIDENT_RECEIVERS } from './scenario.js';
import type { ScenarioName } from './config.js';

export type { SandboxOptions, ScenarioName } from './config.js';
export type { ReceiverMode, ReceiverView } from './receivers.js';
export type { SandboxKeys } from './keys.js';
export type { FixtureRecording } from './fixtures.js';
export {
  SandboxControl,
  SandboxControlError,
  type DeliveryAttemptRecord,
  type DeliveryFaultRates,
  type ExportedState,
  type FaultKind,
  type FaultScriptStep,
  type FaultSettings,
  type FaultsInForce,
  type LoggedRequest,
  type NewRecording,
  type ScenarioReceiver,
  type SandboxState,
  type SandboxStats,
} from './control-client.js';

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:40123; the API is under /api/v1. */
  baseUrl: string;
  apiKeys: SandboxKeys;
  /** The control API under /_sandbox as typed methods. */
  control: SandboxControl;
  /** What --scenario started with: its name and receivers (each with its subscription); null without one. */
  scenario: { name: ScenarioName; receivers: (ReceiverView & { subscriptionId: string })[] } | null;
  /** Stops it: requests in flight finish, deliveries stop, --data is saved. */
  close(): Promise<void>;
}

/** A start that cannot work as asked: the data file or the address. */
export class SandboxStartError extends Error {}

/** `seed`: the one a state exported without its seed (GET /_sandbox/state's default) is taken as made with. */
async function loadFixtures(config: SandboxConfig, seed: string): Promise<Fixtures | null> {
  const { fixtures } = config;
  if (fixtures === null) return null;
  const where = typeof fixtures === 'string' ? `the fixtures file ${fixtures}` : 'the fixtures';
  try {
    return checkFixtures(withSeed(typeof fixtures === 'string' ? await readFixtureFile(fixtures) : fixtures, seed));
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    const message = error.path === '' ? error.reason : `${where} has a bad field at ${error.path}: ${error.reason}`;
    throw new SandboxStartError(message, { cause: error });
  }
}

/** A fixtures state's subscriptions under the rule of POST /webhooks (url-guard.ts). */
async function checkFixtureUrls(config: SandboxConfig, state: StoredState): Promise<void> {
  const policy = { allowPrivate: config.allowPrivateWebhooks, resolveHost: config.resolveHost ?? defaultResolver };
  const refused = await firstRefusedUrl(
    state.subscriptions.map((s) => s.url),
    policy,
  );
  if (refused === null) return;
  const where = typeof config.fixtures === 'string' ? `the fixtures file ${config.fixtures}` : 'the fixtures';
  throw new SandboxStartError(`${where} has a bad field at subscriptions[${refused.index}].url: ${refused.reason}`);
}

/**
 * The state of a data file: the file as last written whole, with its journal's flushes on top.
 * Temporary files of writes a kill cut short are removed first: they are never read.
 */
async function loadDataFile(file: string, seed: string): Promise<StoredState | null> {
  removeStaleTemporaryFiles(file);
  removeStaleTemporaryFiles(journalPath(file));
  const snapshot = await readSnapshot(file, seed);
  const batches = await readJournal(file, snapshot?.bytes ?? null);
  return snapshot && applyJournal(snapshot.state, batches);
}

/**
 * Saved once before serving, so a new data file exists (with its seed) from the first moment,
 * and a file that cannot be written (its folder missing or read-only) is refused now: served
 * anyway, every change answered 500 yet stayed in memory, and nothing was saved at the end.
 */
async function firstSave(app: App, file: string): Promise<void> {
  app.changed();
  try {
    await app.written();
  } catch (error) {
    await app.close();
    const folder = dirname(resolve(file));
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `its folder ${folder} does not exist` : (error as Error).message;
    throw new SandboxStartError(`cannot write the data file ${file}: ${reason}`, { cause: error });
  }
}

/** The folder a data file goes in must be there: checked before anything is read or written. */
async function checkDataFolder(file: string): Promise<void> {
  const folder = dirname(resolve(file));
  const found = await stat(folder).catch(() => null);
  if (found === null) throw new SandboxStartError(`cannot write the data file ${file}: its folder ${folder} does not exist`);
  if (!found.isDirectory()) throw new SandboxStartError(`cannot write the data file ${file}: ${folder} is not a folder`);
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config = resolveConfig(options);
  if (config.dataFile !== null) await checkDataFolder(config.dataFile);
  let stored: StoredState | null;
  // What a data file without its seed (an export of GET /_sandbox/state) is taken as made with.
  const seedForExport = config.seed ?? randomSeed();
  try {
    stored = config.dataFile === null ? null : await loadDataFile(config.dataFile, seedForExport);
  } catch (error) {
    if (error instanceof DataFileError) throw new SandboxStartError(error.message, { cause: error });
    throw error;
  }
  // Checked even when a data file wins over them, so a bad fixtures file never goes unnoticed.
  const fallbackSeed = config.seed ?? stored?.seed ?? seedForExport;
  const fixtures = await loadFixtures(config, fallbackSeed);
  if (fixtures?.kind === 'state') await checkFixtureUrls(config, fixtures.state);
  const list = stored === null && fixtures?.kind === 'recordings' ? fixtures.recordings : null;
  const fromFixtures = stored === null && fixtures?.kind === 'state';
  if (fromFixtures) stored = fixtures.state;
  if (stored && config.seed !== null && config.seed !== stored.seed) {
    const source = fromFixtures ? 'the fixtures state' : `the data file ${config.dataFile}`;
    throw new SandboxStartError(`${source} was made with another seed; drop --seed to use it, or use another file`);
  }
  // The data file keeps its seed and recording count: its changes only make sense on top of them.
  // A plain list of recordings is the whole of main: no generated ones beside it.
  const seed = stored?.seed ?? fallbackSeed;
  const app = new App(config, seed, stored?.recordings ?? (list ? 0 : config.recordings), seedMaterial(seed), stored);
  if (list) {
    try {
      app.addFixtures(list);
    } catch (error) {
      await app.close();
      if (error instanceof FixtureError)
        throw new SandboxStartError(`the fixtures have a bad field at ${error.path}: ${error.reason}`, { cause: error });
      throw error;
    }
  }
  if (config.scenario === 'incident') {
    try {
      app.startIncident(await Receivers.start(INCIDENT_RECEIVERS));
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  if (config.dataFile !== null) await firstSave(app, config.dataFile);
  const { server, shutdown } = createSandboxServer(app, config.log, config.host);

  let bound: AddressInfo;
  try {
    bound = await listenOn(server, config.host, config.port);
  } catch (error) {
    await app.close();
    if (error instanceof ListenError) throw new SandboxStartError(error.message, { cause: error.cause });
    throw error;
  }

  let closing: Promise<void> | null = null;
  const baseUrl = `http://${urlHost(config.host, bound.address)}:${bound.port}`;
  return {
    baseUrl,
    apiKeys: app.keys,
    control: new SandboxControl(baseUrl),
    scenario: config.scenario === null ? null : { name: config.scenario, receivers: app.receivers() },
    close() {
      closing ??= (async () => {
        await shutdown();
        await app.close();
      })();
      return closing;
    },
  };
}
