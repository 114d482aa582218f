// The one way rfs reads a small local input whole (a key, a webhook secret, a header dump): at
// most `limit` bytes, then it stops reading and fails. A path given as /dev/zero, a FIFO that
// never ends or an endless stdin must not grow the process until the machine swaps.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { CancelError, UsageError } from './errors.js';

export interface BoundedReadOptions {
  /** The most bytes accepted; one more is a UsageError (exit 2) that never quotes the input. */
  limit: number;
  /** What the input is, for the messages: "the file given to --secret-file", "stdin". */
  what: string;
  /** What it should hold, for the message: "an API key", "a webhook secret". */
  kind: string;
  signal?: AbortSignal | undefined;
  /**
   * Sees each chunk before it is kept and may throw to stop the read there: a reader that can
   * tell garbage early (NUL bytes where JSON is expected) refuses /dev/zero at its first chunk
   * instead of holding `limit` bytes of it.
   */
  inspect?: (chunk: Buffer) => void;
}

/**
 * The chunks of a stream as Buffers, ending with a CancelError when the signal aborts, even
 * while a read is pending on an idle stdin (the read is then abandoned, not waited for).
 */
export async function* abortableChunks(stream: Readable, signal: AbortSignal | undefined, what: string): AsyncGenerator<Buffer> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<unknown>;
  const cancelled = (): CancelError => new CancelError(`interrupted while reading ${what}`);
  // One listener per read, removed when it settles: a race against one long-lived promise would
  // keep every chunk it ever resolved reachable, and a 300 MB payload would stay in memory.
  const nextOrAbort = (): Promise<IteratorResult<unknown>> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(cancelled());
      const onAbort = (): void => reject(cancelled());
      signal?.addEventListener('abort', onAbort, { once: true });
      // After Ctrl-C the pending read is abandoned; its later failure is swallowed by reject.
      iterator
        .next()
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
  let finished = false;
  try {
    for (;;) {
      const step = await nextOrAbort();
      if (step.done) {
        finished = true;
        return;
      }
      const chunk = step.value;
      // Buffers as they come: decoding and re-encoding would change bytes that are not UTF-8.
      if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
      else yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    }
  } finally {
    // Stops a file stream's reads early; an abandoned read (Ctrl-C) is left to the exiting process.
    if (!finished && !signal?.aborted) await iterator.return?.();
  }
}

/** A file path, or a stream (stdin), read whole up to `limit` bytes. */
export async function readBounded(source: string | Readable, o: BoundedReadOptions): Promise<Buffer> {
  // highWaterMark caps each read of a file: /dev/zero is never asked for 64 KiB at a time.
  const stream = typeof source === 'string' ? createReadStream(source, { highWaterMark: Math.min(o.limit + 1, 64 * 1024) }) : source;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of abortableChunks(stream, o.signal, o.what)) {
      total += chunk.length;
      if (total > o.limit) {
        throw new UsageError(`${o.what} holds more than ${o.limit} bytes: too much for ${o.kind}`);
      }
      o.inspect?.(chunk);
      chunks.push(chunk);
    }
  } finally {
    if (typeof source === 'string') stream.destroy();
  }
  return Buffer.concat(chunks, total);
}
