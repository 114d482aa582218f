// The one way rfs reads a local input (a key, a webhook secret, a header dump, a payload, the
// lines of a batch): at most `limit` bytes — of the whole input, or of each line — then it stops
// reading and fails with exit 2. A path given as /dev/zero, a FIFO that never ends or an endless
// stdin must neither grow the process until the machine swaps nor run until interrupted.
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

/** The input as a stream: a path is opened with reads no larger than the bound needs. */
function openSource(source: string | Readable, limit: number): Readable {
  // highWaterMark caps each read of a file: /dev/zero is never asked for 64 KiB at a time.
  return typeof source === 'string' ? createReadStream(source, { highWaterMark: Math.min(limit + 1, 64 * 1024) }) : source;
}

function tooMuch(o: BoundedReadOptions): UsageError {
  return new UsageError(`${o.what} holds more than ${o.limit} bytes: too much for ${o.kind}`);
}

/**
 * A file path, or a stream (stdin), as its chunks while they stay within `limit` bytes in all:
 * for an input read as it streams (a payload whose HMAC is computed on the way), never held.
 */
export async function* boundedChunks(source: string | Readable, o: BoundedReadOptions): AsyncGenerator<Buffer> {
  const stream = openSource(source, o.limit);
  let total = 0;
  try {
    for await (const chunk of abortableChunks(stream, o.signal, o.what)) {
      total += chunk.length;
      if (total > o.limit) throw tooMuch(o);
      o.inspect?.(chunk);
      yield chunk;
    }
  } finally {
    if (typeof source === 'string') stream.destroy();
  }
}

/** A file path, or a stream (stdin), read whole up to `limit` bytes. */
export async function readBounded(source: string | Readable, o: BoundedReadOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of boundedChunks(source, o)) {
    chunks.push(chunk);
    total += chunk.length;
  }
  return Buffer.concat(chunks, total);
}

/**
 * A stream of lines (JSON Lines), each line's bytes without its `\n`, while every line stays
 * within `limit` bytes: the input may go on for ever (a producer's pipe), a line may not. The
 * line that passes the bound ends the read there with exit 2, naming its number: its end
 * may never come (/dev/zero has no line break), so nothing after it can be found.
 */
export async function* boundedLines(source: string | Readable, o: BoundedReadOptions): AsyncGenerator<Buffer> {
  const stream = openSource(source, o.limit);
  let parts: Buffer[] = [];
  let size = 0;
  let lineNo = 1;
  try {
    for await (let data of abortableChunks(stream, o.signal, o.what)) {
      for (;;) {
        const nl = data.indexOf(0x0a);
        const piece = nl === -1 ? data : data.subarray(0, nl);
        size += piece.length;
        if (size > o.limit) {
          throw new UsageError(`line ${lineNo} of ${o.what} holds more than ${o.limit} bytes: too much for ${o.kind}`, {
            hint: 'each line is one JSON object; check that the input is the JSON Lines file you meant',
          });
        }
        parts.push(piece);
        if (nl === -1) break;
        yield Buffer.concat(parts, size);
        parts = [];
        size = 0;
        lineNo += 1;
        data = data.subarray(nl + 1);
      }
    }
    // After a final newline there is no further line, even when a chunk ended right on it.
    if (size > 0) yield Buffer.concat(parts, size);
  } finally {
    if (typeof source === 'string') stream.destroy();
  }
}
