// --jq (cli.md, Output): the real jq (jqlang/jq 1.8, compiled to WebAssembly by the jq-wasm
// package), loaded only when the flag is given. jq's own main loop runs once, in a worker thread
// (./jq-worker-source.ts), over a stdin that this side streams to it: the command's ndjson, as
// `rfs … -o ndjson | jq -r` would give it. So the items are jq's input stream, numbers keep
// their literal, output arrives as jq produces it, and the worker can be ended at any moment
// (Ctrl-C, a closed stdout) whatever the program is doing.
import { Worker } from 'node:worker_threads';
import { RfsError, UsageError } from '../core/errors.js';
import { jqEngineLocation } from './jq-engine-location.js';
import { CONTROL_BYTES, INPUT_CHUNK, JQ_WORKER_SOURCE, type JqWorkerData, type JqWorkerMessage } from './jq-worker-source.js';

/** An error while running the program: exit 1, with jq's message (cli.md, Output). */
export class JqError extends RfsError {}

/** What the program did in the end: exited (halt, halt_error, end of input) or failed. */
export type JqOutcome = { exit: number } | { error: JqError };

export interface JqRun {
  /** Hands bytes of ndjson to jq; resolves once jq has taken them (false: jq has ended). */
  feed(bytes: Uint8Array): Promise<boolean>;
  /** The end of the input; resolves when jq has ended. */
  end(): Promise<JqOutcome>;
  /** Set once jq has ended (halt, an error, or after the end of input). */
  outcome(): JqOutcome | undefined;
  /** Ends the worker at once (Ctrl-C, a closed stdout). */
  kill(): void;
}

export interface JqRunOptions {
  /** Writes a chunk of jq's stdout; resolves when it may send more. */
  out(bytes: Uint8Array): Promise<void>;
  /** jq's own messages on stderr (debug, stderr, halt_error). */
  err(text: string): void;
}

/**
 * Starts jq on `expression`. A program that does not compile is a UsageError (exit 2), before
 * any request is sent: jq compiles before it reads its first input, and that read is awaited.
 */
export async function startJq(expression: string, o: JqRunOptions): Promise<JqRun> {
  const control = new SharedArrayBuffer(CONTROL_BYTES + INPUT_CHUNK);
  const ctrl = new Int32Array(control, 0, 4);
  const shared = new Uint8Array(control, CONTROL_BYTES);
  const workerData: JqWorkerData = { control, program: expression, engine: await jqEngineLocation() };
  const worker = new Worker(JQ_WORKER_SOURCE, { eval: true, workerData, stdout: false, stderr: false });

  let finished: JqOutcome | undefined;
  const ended: Array<(outcome: JqOutcome) => void> = [];
  const finish = (outcome: JqOutcome): void => {
    if (finished !== undefined) return;
    finished = outcome;
    for (const resolve of ended.splice(0)) resolve(outcome);
    waiting?.resolve(false);
    waiting = undefined;
  };

  // What the command wrote and jq has not read yet, and a read jq is blocked in.
  let queue: Uint8Array[] = [];
  let inputEnded = false;
  let asked = false;
  let waiting: { resolve: (taken: boolean) => void } | undefined;
  let outChain = Promise.resolve();

  const answer = (): void => {
    if (!asked) return;
    const next = queue[0];
    if (next === undefined && !inputEnded) return;
    asked = false;
    let length = 0;
    if (next !== undefined) {
      length = Math.min(next.length, INPUT_CHUNK);
      shared.set(next.subarray(0, length));
      if (length === next.length) queue.shift();
      else queue[0] = next.subarray(length);
    }
    Atomics.store(ctrl, 1, length);
    Atomics.store(ctrl, 2, inputEnded && queue.length === 0 && length === 0 ? 1 : 0);
    Atomics.store(ctrl, 0, 1);
    Atomics.notify(ctrl, 0);
    if (queue.length === 0) {
      waiting?.resolve(true);
      waiting = undefined;
    }
  };

  const compiled = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: JqWorkerMessage) => {
      switch (message.type) {
        case 'read':
          asked = true;
          resolve();
          answer();
          return;
        case 'out': {
          const bytes = message.bytes;
          outChain = outChain.then(async () => {
            if (finished !== undefined) return;
            try {
              await o.out(bytes);
              Atomics.sub(ctrl, 3, bytes.length);
              Atomics.notify(ctrl, 3);
            } catch {
              // stdout closed (`| head -1`): what the reader wanted, it got; jq is stopped, and
              // the command's next write sees the output closed.
              finish({ exit: 0 });
              void worker.terminate();
            }
          });
          return;
        }
        case 'stderr':
          // After what jq printed before it.
          void outChain.then(() => o.err(message.text));
          return;
        case 'compile':
          reject(compileError(expression, message.text));
          void worker.terminate();
          return;
        case 'fail':
          void outChain.then(() => finish({ error: new JqError(`--jq: ${jqMessage(message.text)}`) }));
          void worker.terminate();
          return;
        case 'exit':
          resolve();
          void outChain.then(() => finish({ exit: message.code }));
          return;
      }
    });
    worker.on('error', (error) => {
      reject(error);
      finish({ error: new JqError(`--jq: ${error.message}`) });
    });
    worker.on('exit', () => {
      reject(new JqError('--jq: jq ended before compiling the program'));
      void outChain.then(() => finish({ error: new JqError('--jq: jq ended') }));
    });
  });
  try {
    await compiled;
  } catch (error) {
    await worker.terminate();
    throw error;
  }

  return {
    feed(bytes) {
      if (finished !== undefined) return Promise.resolve(false);
      if (bytes.length === 0) return Promise.resolve(true);
      queue.push(bytes);
      return new Promise<boolean>((resolve) => {
        const previous = waiting;
        waiting = {
          resolve: (taken) => {
            previous?.resolve(taken);
            resolve(taken);
          },
        };
        answer();
      });
    },
    end() {
      inputEnded = true;
      answer();
      if (finished !== undefined) return Promise.resolve(finished);
      return new Promise((resolve) => ended.push(resolve));
    },
    outcome: () => finished,
    kill() {
      queue = [];
      finish({ exit: 130 });
      void worker.terminate();
    },
  };
}

function compileError(expression: string, stderr: string): UsageError {
  // A program whose first word is an option of jq's (`-1`) is read by jq as one, as it would be
  // on jq's own command line.
  const message = jqMessage(stderr) || `jq could not compile ${JSON.stringify(expression)}`;
  return new UsageError(`--jq does not compile: ${message}`, {
    // The program runs on each item (or the resource), so `.id`, not `.data[] | .id`.
    hint: "jq syntax: https://jqlang.org/manual/ — the program runs on each item; quote it for the shell, e.g. --jq '.id'",
  });
}

/** jq's stderr on one line, without its count of compile errors or jq's usage advice. */
function jqMessage(stderr: string): string {
  return stderr
    .trim()
    .replace(/\njq: \d+ compile errors?$/, '')
    .replace(/\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs {2}at https:\/\/jqlang\.org$/, '')
    .replace(/\s*\n\s*/g, ' ');
}
