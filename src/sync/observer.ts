// What a long-running sync tells those who watch it (cli.md, sync: --metrics, --log-format
// json): each pass, each recording listed and handled, each command run. The pass and the sync
// command call one SyncObserver; the metrics and the JSON log each implement it.
import type { ItemResult } from '../batch/results.js';
import type { RecordingState } from './journal.js';

export interface PassEnd {
  filed: number;
  failed: number;
  /** Left out of the pass by the backoff: still waiting, or parked. */
  waiting: number;
  parked: number;
  interrupted: boolean;
  /**
   * An interrupted pass: what stopped it ("interrupted (Ctrl-C)", "terminated (SIGTERM)"), what it
   * was doing then, and the journal that holds what is pending. The log's pass-end says it all,
   * so that no second line repeats the pass (cli.md, sync: --log-format json).
   */
  interruptedBy?: string;
  interruptedDuring?: string;
  journal?: string;
  /** A pass-level failure (the service unreachable, the listing refused): the pass did not finish. */
  error?: string;
  durationMs: number;
}

export interface CommandEnd {
  code: number | null;
  timedOut: boolean;
}

export interface SyncObserver {
  /** The journal's per-recording states, live: read when someone asks for the backlog. */
  journalOpened(states: ReadonlyMap<string, RecordingState>): void;
  passStarted(pass: number): void;
  passEnded(pass: number, end: PassEnd): void;
  /** A recording found by the listing as COMPLETED and unsynced. */
  listed(item: { id: string; createdAt: string }): void;
  /** A command starts; the function returned is called when it has ended. */
  commandStarted(id: string): (end: CommandEnd) => void;
  result(result: ItemResult): void;
  parked(id: string, failures: number): void;
  close(): Promise<void>;
}

/** Several observers as one. */
export function observers(list: SyncObserver[]): SyncObserver {
  return {
    journalOpened: (states) => {
      for (const o of list) o.journalOpened(states);
    },
    passStarted: (pass) => {
      for (const o of list) o.passStarted(pass);
    },
    passEnded: (pass, end) => {
      for (const o of list) o.passEnded(pass, end);
    },
    listed: (item) => {
      for (const o of list) o.listed(item);
    },
    commandStarted: (id) => {
      const ends = list.map((o) => o.commandStarted(id));
      return (end) => {
        for (const e of ends) e(end);
      };
    },
    result: (r) => {
      for (const o of list) o.result(r);
    },
    parked: (id, failures) => {
      for (const o of list) o.parked(id, failures);
    },
    close: async () => {
      for (const o of list) await o.close();
    },
  };
}
