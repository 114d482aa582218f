// One outgoing delivery attempt over node:http(s). The connection goes to the address that was
// just checked (a lookup that answers only that address), redirects are never followed, and
// the attempt is cut off when it has no answer within the timeout. Only the status matters
// (sandbox.md: a 2xx answer within 10 s is success): the answer's body is read and dropped up
// to 64 KiB and within the same timeout, then the connection is closed. A receiver that
// answered 200 and streamed forever used to be read without end (3.8 GB in 15 s).
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** The most of a receiver's answer read before the connection is closed. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostResult {
  status: number | null;
  error: string | null;
}

function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

export function postOnce(
  url: URL,
  address: string,
  headers: Record<string, string>,
  body: Buffer,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let req: ClientRequest;
    try {
      req = send(url, { method: 'POST', headers, lookup: pinnedLookup(address), agent: false, signal });
    } catch (error) {
      done({ status: null, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    // The whole exchange, answer's body included, ends by this deadline.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('response', (res) => {
      done({ status: res.statusCode ?? null, error: null });
      let read = 0;
      res.on('error', () => undefined);
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) req.destroy();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({
        status: null,
        error: error.name === 'AbortError' ? 'aborted' : error.code ? `${error.code}: ${error.message}` : error.message,
      });
    });
    req.end(body);
  });
}
