// rfs sandbox --inspect: the sandbox's side (./sandbox-source.ts) served by the inspector's
// server (./server.ts). Loaded by the command only with the flag.
import { UsageError } from '../core/errors.js';
import { ListenError } from '../core/listen.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { pageFolder } from './listen.js';
import { SandboxSource } from './sandbox-source.js';
import { startInspector } from './server.js';
import { StdoutSecrets } from '../core/redact-stream.js';

/** The sandbox's secrets, exactly: its API keys and its subscriptions' webhook secrets (made as it runs). */
function sandboxSecrets(sandbox: RunningSandbox): (text: string) => string {
  const known = new StdoutSecrets();
  for (const key of Object.values(sandbox.apiKeys)) known.addKey(key);
  return (text) => {
    for (const secret of sandbox.inspection.subscriptionSecrets()) known.addSecret(secret);
    return known.redact(text, true).out;
  };
}

export async function startSandboxInspector(
  sandbox: RunningSandbox,
  address: { host: string; port: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const assets = pageFolder();
  const source = new SandboxSource(sandbox);
  try {
    const server = await startInspector({ host: address.host, port: address.port, source, assets, redact: sandboxSecrets(sandbox) });
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await source.close();
      },
    };
  } catch (error) {
    await source.close();
    if (error instanceof ListenError) throw new UsageError(`--inspect: ${error.message}`, { cause: error });
    throw error;
  }
}
