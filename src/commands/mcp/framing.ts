// What rfs mcp reads before the MCP SDK does: the client's stdin cut into lines (the stdio
// transport: one JSON-RPC message a line), each line checked, and only messages passed on.
// The SDK's own stdio transport drops a line that is not a message without a word (it tells
// only its `onerror`), so a client that sent one would wait for an answer forever. JSON-RPC 2.0
// (section 5.1) answers instead: -32700 "Parse error" for a line that is not JSON, -32600
// "Invalid Request" for JSON that is no request, notification or response, with the request's
// id where one can be read and null where not. A batch (an array) is refused the same way:
// MCP took batches out in its 2025-06-18 revision, and the SDK this server runs on speaks
// 2025-11-25 and reads no batch in any revision. The server goes on serving after each refusal.
import { Transform } from 'node:stream';

/** A JSON-RPC 2.0 error answer to a line that was not a message. */
export interface Refusal {
  jsonrpc: '2.0';
  /** The request's id where the line had a readable one (a string or an integer), else null. */
  id: string | number | null;
  error: { code: number; message: string; data?: string };
}

export interface FramingOptions {
  /** True for a JSON-RPC message the server can take (the SDK's own schema decides). */
  isMessage(value: unknown): boolean;
  /** Sends a refusal to the client. */
  refuse(refusal: Refusal): void;
  /**
   * The longest line passed on, in bytes, newline included: the SDK's stdio transport closes
   * the connection on a longer one, so a longer line is refused and skipped here instead.
   */
  maxLineBytes: number;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const NEWLINE = 0x0a;

/**
 * A stream to pipe stdin into and hand to the SDK's stdio transport in its place: it passes on
 * each line that is a message (with its newline), answers each one that is not through
 * `refuse`, and skips blank lines (a line-delimited reader's habit: a client may end its
 * output with an extra newline). A last line without a newline is taken when stdin ends.
 */
export function messageLines(o: FramingOptions): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // Over maxLineBytes: the rest of the line, up to its newline, is thrown away.
  let skipping = false;

  const take = (stream: Transform, bytes: Buffer): void => {
    const text = bytes.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    const refusal = refusalOf(text, o.isMessage);
    if (refusal === undefined) stream.push(`${text}\n`);
    else o.refuse(refusal);
  };

  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let start = 0;
      for (;;) {
        const newline = bytes.indexOf(NEWLINE, start);
        const piece = bytes.subarray(start, newline === -1 ? bytes.length : newline);
        if (!skipping) {
          if (pendingBytes + piece.length + 1 > o.maxLineBytes) {
            skipping = true;
            pending = [];
            pendingBytes = 0;
            o.refuse(invalid(null, `a line longer than ${o.maxLineBytes} bytes: not read`));
          } else if (piece.length > 0) {
            pending.push(piece);
            pendingBytes += piece.length;
          }
        }
        if (newline === -1) break;
        if (!skipping) take(this, Buffer.concat(pending, pendingBytes));
        pending = [];
        pendingBytes = 0;
        skipping = false;
        start = newline + 1;
      }
      done();
    },
    flush(done) {
      if (!skipping && pendingBytes > 0) take(this, Buffer.concat(pending, pendingBytes));
      done();
    },
  });
}

/** Why `line` is no message, as the answer to send; undefined when it is one. */
function refusalOf(line: string, isMessage: (value: unknown) => boolean): Refusal | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error' } };
  }
  if (Array.isArray(value))
    return invalid(
      null,
      'a batch: MCP has taken no JSON-RPC batches since its 2025-06-18 revision; send each message on a line of its own',
    );
  if (isMessage(value)) return undefined;
  return invalid(idOf(value), 'not a JSON-RPC 2.0 request, notification or response');
}

function invalid(id: Refusal['id'], data: string): Refusal {
  return { jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: 'Invalid Request', data } };
}

/** The id of an object that has a valid one (JSON-RPC: a string or a number; MCP: an integer), else null. */
function idOf(value: unknown): Refusal['id'] {
  if (value === null || typeof value !== 'object') return null;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isInteger(id)) return id;
  return null;
}
