// rfs sandbox as a library: startSandbox() runs the whole service of api.md on a local port.
// The command (src/commands/sandbox/run.ts) and the project's tests start it through here.
import { App } from './app.js';
import { resolveConfig, type SandboxOptions } from './config.js';
import type { SandboxKeys } from './keys.js';
import { DataFileError, loadState } from './persistence.js';
import { randomSeed, seedMaterial } from './random.js';
import { createSandboxServer } from './server.js';

export type { SandboxOptions } from './config.js';
export type { SandboxKeys } from './keys.js';

export interface RunningSandbox {
  baseUrl: string;
  apiKeys: SandboxKeys;
  close(): Promise<void>;
}

/** A start that cannot work as asked: the data file or the address. */
export class SandboxStartError extends Error {}

function urlHost(host: string, address: string): string {
  // A wildcard bind is reached through loopback.
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  const shown = host === 'localhost' ? address : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const config = resolveConfig(options);
  let stored;
  try {
    stored = config.dataFile === null ? null : await loadState(config.dataFile);
  } catch (error) {
    if (error instanceof DataFileError) throw new SandboxStartError(error.message, { cause: error });
    throw error;
  }
  if (stored && config.seed !== null && config.seed !== stored.seed) {
    throw new SandboxStartError(`the data file ${config.dataFile} was made with another seed; drop --seed to use it, or use another file`);
  }
  // The data file keeps its seed and recording count: its changes only make sense on top of them.
  const seed = stored?.seed ?? config.seed ?? randomSeed();
  const app = new App(config, seed, stored?.recordings ?? config.recordings, seedMaterial(seed), stored);
  const { server, shutdown } = createSandboxServer(app, config.log);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: config.host, port: config.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new SandboxStartError(`cannot listen on ${config.host}:${config.port} (${code})`, { cause: error });
    }
    throw error;
  }
  // Saved once at start, so a new data file exists (with its seed) from the first moment.
  app.changed();

  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const ip = typeof address === 'object' && address !== null ? address.address : config.host;
  let closing: Promise<void> | null = null;
  return {
    baseUrl: `http://${urlHost(config.host, ip)}:${port}`,
    apiKeys: app.keys,
    close() {
      closing ??= (async () => {
        await shutdown();
        await app.close();
      })();
      return closing;
    },
  };
}
