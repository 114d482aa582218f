// rfs webhooks listen --inspect: the listener's record (./listen-source.ts) with its history,
// served by the inspector's server (./server.ts). Loaded by the command only with the flag.
import { UsageError } from '../core/errors.js';
import { ListenError } from '../core/listen.js';
import type { RunningReceiver } from '../webhooks/receiver.js';
import { assetsFolder } from './assets.js';
import { DEFAULT_HISTORY_DAYS, defaultHistoryPath, HistoryPathError, MAX_DEFAULT_HISTORIES, pruneDefaultHistories } from './history.js';
import { ListenSource, type ReplayReport } from './listen-source.js';
import { startInspector } from './server.js';
import { StdoutSecrets } from '../core/redact-stream.js';

export interface ListenInspectorOptions {
  address: { host: string; port: number };
  historyFile: string | undefined;
  env: NodeJS.ProcessEnv;
  receiver: RunningReceiver;
  forwardTo: string | undefined;
  secret: () => string;
  /** Takes the run's known secrets out of a text (IO.redactText: its API key, the webhook secrets it read). */
  redactText: ((text: string) => string) | undefined;
  now: () => number;
  /** A line on stderr, even with --quiet: where the inspector is. */
  say: (line: string) => void;
  warn: (line: string) => void;
  /** Told of each replay made from the inspector (ListenSourceOptions.onReplay). */
  onReplay?: (replay: ReplayReport) => void;
}

/** Where the page is missing (a build without it): said, with what to do. */
export function pageFolder(): string {
  const folder = assetsFolder();
  if (folder === undefined)
    throw new UsageError(
      'this installation of rfs has no inspector page (dist/inspector/): run it from the npm package, or build it (npm run build)',
    );
  return folder;
}

export async function startListenInspector(
  o: ListenInspectorOptions,
): Promise<{ source: ListenSource; server: { close(): Promise<void> } }> {
  const assets = pageFolder();
  const historyFile = o.historyFile ?? defaultHistoryPath(o.env, o.receiver.port);
  if (o.historyFile === undefined) {
    // One default history per port: bounded in number (docs/inspector.md, Options), and said.
    const removed = await pruneDefaultHistories(historyFile, o.now());
    if (removed.length > 0)
      o.say(
        `removed ${removed.length} inspector histor${removed.length === 1 ? 'y' : 'ies'} of other ports (unused for ${DEFAULT_HISTORY_DAYS} days, or past the newest ${MAX_DEFAULT_HISTORIES}): ${removed.join(', ')}`,
      );
  }
  const source = await ListenSource.open({
    historyFile,
    forwardTo: o.forwardTo,
    forward: o.receiver.forward,
    secret: o.secret,
    receiverUrl: o.receiver.url,
    now: o.now,
    ...(o.onReplay === undefined ? {} : { onReplay: o.onReplay }),
    onHistoryError: (error) =>
      o.warn(`could not write the history ${historyFile}: ${error instanceof Error ? error.message : String(error)}`),
  }).catch((error: unknown) => {
    // A folder, a FIFO or a device: said, exit 2, and nothing read from it (a FIFO would block).
    if (error instanceof HistoryPathError)
      throw new UsageError(`--history: ${error.message}`, { cause: error, hint: 'give the path of a regular file (or of none yet)' });
    throw error;
  });
  if (source.setAsideAs !== undefined)
    o.warn(
      `the history ${historyFile} is damaged: no delivery could be read from ${source.damaged > 0 ? `its ${source.damaged} line(s)` : 'its end'}; it was set aside as ${source.setAsideAs} (nothing in it is lost) and a new history starts`,
    );
  else if (source.damaged > 0) o.warn(`the history ${historyFile} had ${source.damaged} damaged line(s): skipped`);
  let server: Awaited<ReturnType<typeof startInspector>>;
  try {
    const known = new StdoutSecrets();
    known.addSecret(o.secret());
    const redact = (text: string): string => {
      const out = known.redact(text, true).out;
      return o.redactText === undefined ? out : o.redactText(out);
    };
    server = await startInspector({ host: o.address.host, port: o.address.port, source, assets, redact });
  } catch (error) {
    await source.close();
    if (error instanceof ListenError) {
      throw new UsageError(`--inspect: ${error.message}`, {
        cause: error,
        hint: error.code === 'EADDRINUSE' ? '--inspect 127.0.0.1:0 picks a free port' : undefined,
      });
    }
    throw error;
  }
  o.say(`inspector on ${server.pageUrl} (history ${historyFile})`);
  // The address works once (server.ts, pageUrl): another browser asks for a fresh one, as a signal
  // (SIGUSR1 is Node's debugger's), which needs no terminal and leaves Ctrl-C as it is.
  o.say(`each inspector address opens once: kill -USR2 ${process.pid} prints a fresh one`);
  const fresh = (): void => o.say(`inspector on ${server.freshPageUrl()} (a fresh address: it opens once)`);
  process.on('SIGUSR2', fresh);
  const close = server.close;
  return {
    source,
    server: {
      close: () => {
        process.off('SIGUSR2', fresh);
        return close();
      },
    },
  };
}
