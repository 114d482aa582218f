// One outgoing delivery attempt over node:http(s). The connection goes to the address that was
// just checked (a lookup that answers only that address), redirects are never followed, and
// the attempt is cut off when it has no answer within the timeout.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

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
      clearTimeout(timer);
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
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('response', (res) => {
      // Only the status matters; the body is read and dropped so the socket can close.
      res.on('error', () => undefined);
      res.resume();
      done({ status: res.statusCode ?? null, error: null });
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
