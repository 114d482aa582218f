// Reading a state file whole (--data, --fixtures): bounded as PUT /_sandbox/state's body is, and
// refused at the first byte that no JSON text holds. /dev/zero, a FIFO that never ends or a
// 300 MB file of something else used to be read until V8's string limit (~600 MB of memory).
// A file that is not JSON is refused at its first chunk, whatever its size.
import { UsageError } from '../core/errors.js';
import { readBounded } from '../core/bounded-read.js';
import { MAX_STATE_BODY_BYTES } from './request.js';

/** The file cannot be a state: too large, not JSON, or unreadable (`code` as fs said, if it did). */
export class StateFileError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const OPENERS = new Set([0x7b, 0x5b]); // { [

/**
 * An inspector that refuses at the first chunk that shows the file is no state: its first byte
 * past whitespace must open an object or a list (what a state or a fixture list is), and a
 * control character other than tab, line feed and carriage return is never part of a JSON
 * text, not even inside a string (RFC 8259, section 7).
 */
function jsonStateBytes(): (chunk: Buffer) => void {
  let started = false;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (!started && !WHITESPACE.has(byte)) {
        if (!OPENERS.has(byte)) throw new StateFileError('not JSON');
        started = true;
      }
      if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) throw new StateFileError('not JSON');
    }
  };
}

/** The file's bytes; `what` names it in messages ("the data file x.json"). */
export async function readStateFile(file: string, what: string): Promise<Buffer> {
  try {
    return await readBounded(file, { limit: MAX_STATE_BODY_BYTES, what, kind: 'a sandbox state', inspect: jsonStateBytes() });
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    // The one limit, in the words of a PUT /_sandbox/state that is too large.
    if (error instanceof UsageError) throw new StateFileError(`${what} is larger than ${MAX_STATE_BODY_BYTES / 2 ** 20} MiB`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new StateFileError(`cannot read ${what}: ${(error as Error).message}`, code);
  }
}
