// Reading a request safely: the path split and decoded segment by segment, strict query
// parameters, a bounded body, and the JSON content type.
import type { IncomingMessage } from 'node:http';
import { safeParse, type core, type infer as Infer } from 'zod/mini';
import { MAX_JSON_DEPTH, bytesNestDeeperThan } from '../shared/json-depth.js';
import { ProblemError, invalid } from './problem.js';

export const MAX_BODY_BYTES = 1024 * 1024; // 1 MiB
// PUT /_sandbox/state takes back what GET exported, which grows with the recordings changed.
export const MAX_STATE_BODY_BYTES = 256 * MAX_BODY_BYTES;

/**
 * The path as decoded segments, or null when a segment does not decode. Each segment is
 * decoded on its own, so `%2F` or `..` stay inside their segment and can never change the route.
 */
export function splitTarget(target: string): { segments: string[] | null; path: string; query: string } {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const query = q === -1 ? '' : target.slice(q + 1);
  if (!path.startsWith('/')) return { segments: null, path, query };
  try {
    return { segments: path.slice(1).split('/').map(decodeURIComponent), path, query };
  } catch {
    return { segments: null, path, query };
  }
}

/** Query parameters, each at most once, none unknown (400 INVALID_INPUT otherwise). */
export function parseQuery(query: string, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (query === '') return out;
  for (const [name, value] of new URLSearchParams(query)) {
    if (!allowed.includes(name)) {
      throw invalid(
        allowed.length === 0
          ? `unknown query parameter ${name}: this endpoint takes none`
          : `unknown query parameter ${name}; allowed: ${allowed.join(', ')}`,
      );
    }
    if (out.has(name)) throw invalid(`query parameter ${name} is given more than once`);
    out.set(name, value);
  }
  return out;
}

export function enumParam<T extends string>(params: Map<string, string>, name: string, values: readonly T[]): T | undefined {
  const value = params.get(name);
  if (value === undefined) return undefined;
  if (!(values as readonly string[]).includes(value)) throw invalid(`${name} must be one of ${values.join(', ')}`);
  return value as T;
}

/** A parameter of a documented pattern (an id's `^wh_…`): refused as the document says, never a silent empty list. */
export function patternParam(params: Map<string, string>, name: string, pattern: RegExp, words: string): string | undefined {
  const value = params.get(name);
  if (value !== undefined && !pattern.test(value)) throw invalid(`${name} must look like ${words}`);
  return value;
}

export function limitParam(params: Map<string, string>, max: number, fallback: number): number {
  const value = params.get('limit');
  if (value === undefined) return fallback;
  const n = /^[0-9]{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) throw invalid(`limit must be an integer from 1 to ${max}`);
  return n;
}

export type BodyResult = Buffer | 'too-large' | 'aborted';

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The body, at most 1 MiB; a bigger one is read and dropped so that the answer can be sent. */
export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<BodyResult> {
  // Past this much, an oversized body is no longer drained: the connection is closed instead.
  const drainLimit = 16 * maxBytes;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (size > drainLimit) {
        ended = true;
        resolve('too-large');
      }
    });
    req.on('end', () => {
      if (ended) return;
      ended = true;
      resolve(size > maxBytes ? 'too-large' : Buffer.concat(chunks, size));
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      if (!ended) {
        ended = true;
        resolve('aborted');
      }
    });
  });
}

/** application/json, with an optional UTF-8 charset; nothing else is JSON to this API. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return params.every((param) => {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() !== 'charset') return true;
    return /^"?utf-8"?$/i.test(value?.trim() ?? '');
  });
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The body parsed against a schema: 415 for another content type, 400 for bad JSON or shape,
 * and 400 for a body nested deeper than `maxDepth` levels: what is stored must be answerable and
 * savable, and JSON.stringify of a value thousands of levels deep overflows the stack. Checked on
 * the bytes, before parsing, so nothing deep is ever built.
 */
export function jsonBody<T extends core.$ZodType>(
  contentType: string | undefined,
  body: Buffer,
  schema: T,
  maxDepth: number = MAX_JSON_DEPTH,
): Infer<T> {
  if (!isJsonContentType(contentType)) throw new ProblemError('UNSUPPORTED_CONTENT_TYPE', 'send the body as application/json');
  if (bytesNestDeeperThan(body, maxDepth)) throw invalid(`the body is nested more than ${maxDepth} levels deep`);
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(body));
  } catch {
    throw invalid('the body is not valid JSON');
  }
  const parsed = safeParse(schema, value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
    throw invalid(`${where}: ${issue?.message ?? 'not of the documented shape'}`);
  }
  // zod builds its output by assigning each key, and `out["__proto__"] = …` sets a prototype
  // instead of a key: free-form JSON (a filing's metadata) would lose such a key. A schema that
  // only checks (no transform, as every body schema here) accepts the value as sent, so that is
  // what is kept.
  return value as Infer<T>;
}
