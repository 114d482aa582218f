// rfs api <path> (cli.md, api): any request to the API through the one client — the profile's
// key, retries, pacing, --verbose and the exit codes of every other command — for an endpoint
// or a field that rfs has no command for yet.
import { needsIdempotencyKey, newIdempotencyKey } from '../../api/idempotency.js';
import { parseJson } from '../../api/contract.js';
import { paginateRaw } from '../../api/raw.js';
import { withQuery } from '../../api/client.js';
import { apiRequestPath, isAbsoluteUrl } from '../../api/raw-path.js';
import type { RawResponse } from '../../api/types.js';
import { readBounded } from '../../core/bounded-read.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { sanitize } from '../../core/sanitize.js';
import { writeList, writeOut } from '../../output/list-writer.js';
import { safeJson } from '../../output/safe-json.js';
import { MAX_JSON_DEPTH, bytesNestDeeperThan } from '../../shared/json-depth.js';
import { IdempotencyKey } from '../../shared/schemas.js';
import type { Context } from '../context.js';
import type { ApiMethod, Input } from './index.js';

/** A body read from --input: the API takes JSON bodies of a few KB; this is generous. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Headers that would change where or how the request travels, or whose key it carries. */
const REFUSED_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding', 'connection']);

export interface ApiOptions {
  /** As given: an absolute URL is checked once the base URL is known. */
  path: string;
  method: ApiMethod;
  /** -f fields: the JSON body, or query parameters (GET, or with --input). */
  fields: Map<string, unknown>;
  input: string | undefined;
  headers: Record<string, string>;
  include: boolean;
  paginate: boolean;
}

export function options({ args: [path], flags }: Input, ctx: Context): ApiOptions {
  const method = flags.method ?? (flags.input !== undefined ? 'POST' : 'GET');
  // Relative paths are checked now, before the config is read; absolute URLs in run().
  if (!isAbsoluteUrl(path)) apiRequestPath(path);
  const headers = parseHeaders(flags.header ?? []);
  const keyHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'idempotency-key');
  const given = flags.idempotencyKey;
  if (given !== undefined) {
    if (!IdempotencyKey.safeParse(given).success)
      throw new UsageError('invalid --idempotency-key: use 8 to 255 letters, digits, or . _ : -');
    if (keyHeader !== undefined && headers[keyHeader] !== given) {
      throw new UsageError('--idempotency-key and -H Idempotency-Key disagree: give one of them');
    }
    if (keyHeader !== undefined) delete headers[keyHeader];
    headers['Idempotency-Key'] = given;
  }
  if (method === 'GET' && flags.input !== undefined) throw new UsageError('--input sends a body: use it with -X POST or -X DELETE');
  if (flags.paginate === true) {
    if (method !== 'GET') throw new UsageError('--paginate follows the pages of a list: it works with GET only');
    if (flags.include === true) throw new UsageError('--paginate prints one list: it cannot be combined with -i');
  }
  if (flags.include === true && ctx.globals.jq !== undefined) {
    throw new UsageError('-i prints headers, which are not JSON: it cannot be combined with --jq');
  }
  return {
    path,
    method,
    fields: parseFields(flags.field ?? []),
    input: flags.input,
    headers,
    include: flags.include === true,
    paginate: flags.paginate === true,
  };
}

export async function run(ctx: Context, o: ApiOptions): Promise<number> {
  const client = await ctx.api();
  let path = apiRequestPath(o.path, client.baseUrl);
  const bodyFields = o.method !== 'GET' && o.input === undefined;
  if (!bodyFields && o.fields.size > 0) path = withQuery(path, queryFields(o.fields));

  if (o.paginate) {
    const items = paginateRaw(client, path, ctx.signal);
    // No columns to show: a table is the JSON array itself.
    const format = ctx.globals.output === 'ndjson' ? 'ndjson' : 'json';
    await writeList(ctx.io, format, items, { columns: [], color: false });
    return EXIT.OK;
  }

  const headers = { ...o.headers };
  if (needsIdempotencyKey(o.method, path) && !Object.keys(headers).some((n) => n.toLowerCase() === 'idempotency-key')) {
    // As `webhooks create` does: one key per invocation, the same on every retry.
    headers['Idempotency-Key'] = newIdempotencyKey();
  }
  // The key shows once with -v, in the verbose line of each attempt (api/client.ts).

  let body: string | Buffer | undefined;
  if (o.input !== undefined) {
    body = await readBounded(o.input === '-' ? ctx.io.stdin : o.input, {
      limit: MAX_INPUT_BYTES,
      what: o.input === '-' ? 'stdin' : 'the file given to --input',
      kind: 'a request body',
      signal: ctx.signal,
    });
  } else if (bodyFields && o.fields.size > 0) {
    body = JSON.stringify(Object.fromEntries(o.fields));
  }

  const answer = await client.requestRaw({ method: o.method, path, headers, body, signal: ctx.signal });
  if (o.include) await writeOut(ctx.io.stdout, head(answer, ctx.io.stdoutIsTTY));
  await printBody(ctx, answer);
  // The error line on stderr and the exit code of the status, as every other command.
  if (answer.error) throw answer.error;
  return EXIT.OK;
}

async function printBody(ctx: Context, answer: RawResponse): Promise<void> {
  const bytes = answer.body;
  if (bytes === undefined || bytes.length === 0) return;
  const text = bytes.toString('utf8');
  let value: unknown;
  if (!answer.error) {
    // The contract's reading of an answer, as every command's: not JSON, or nested deeper than
    // any printer can walk, is exit 7.
    value = parseJson(bytes);
  } else {
    try {
      if (bytesNestDeeperThan(bytes, MAX_JSON_DEPTH)) throw new Error('nested too deep to print as JSON');
      value = JSON.parse(text);
    } catch {
      // An error page from a proxy: shown as it came, made safe for a terminal.
      await writeOut(ctx.io.stdout, `${ctx.io.stdoutIsTTY ? sanitize(text, { multiline: true }) : text}\n`);
      return;
    }
  }
  // Indented for people on a terminal (cli.md, api); one line for scripts and for -o ndjson.
  const pretty = ctx.io.stdoutIsTTY && ctx.globals.output !== 'ndjson';
  await writeOut(ctx.io.stdout, `${safeJson(value, pretty ? 2 : undefined)}\n`);
}

/** `-i`: the status line and the headers, as curl -i shows them. */
function head(answer: RawResponse, tty: boolean): string {
  const clean = (text: string): string => (tty ? sanitize(text) : text);
  const lines = [`HTTP/1.1 ${answer.status} ${clean(answer.statusText)}`.trimEnd()];
  for (const [name, value] of Object.entries(answer.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) lines.push(`${clean(name)}: ${clean(one)}`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** `key=value` is a string, `key:=json` a typed value (gh's -f/-F, in one flag). */
function parseFields(raw: string[]): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const field of raw) {
    const eq = field.indexOf('=');
    if (eq <= 0 || (eq === 1 && field[0] === ':'))
      throw new UsageError(`invalid -f ${JSON.stringify(field)}: expected key=value or key:=json`);
    const typed = field[eq - 1] === ':';
    const key = field.slice(0, typed ? eq - 1 : eq);
    const text = field.slice(eq + 1);
    let value: unknown = text;
    if (typed) {
      try {
        value = JSON.parse(text);
      } catch {
        throw new UsageError(
          `invalid -f ${key}:=…: ${JSON.stringify(text)} is not JSON (quote a string: ${key}:='"text"', or use ${key}=text)`,
        );
      }
    }
    if (fields.has(key)) throw new UsageError(`-f ${key} is given twice`);
    fields.set(key, value);
  }
  return fields;
}

/** -f fields as query parameters (added to the path by the client's rule): scalars only. */
function queryFields(fields: Map<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    [...fields].map(([key, value]) => {
      if (value !== null && typeof value === 'object') {
        throw new UsageError(
          `-f ${key}: a query parameter takes a string, number or boolean, not ${Array.isArray(value) ? 'an array' : 'an object'}`,
        );
      }
      return [key, String(value)];
    }),
  );
}

function parseHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of raw) {
    const colon = header.indexOf(':');
    const name = colon === -1 ? '' : header.slice(0, colon).trim();
    const value = colon === -1 ? '' : header.slice(colon + 1).trim();
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw new UsageError(`invalid -H ${JSON.stringify(header)}: expected "Name: value"`);
    if (/[\r\n\0]/.test(value)) throw new UsageError(`invalid -H ${name}: a header value cannot hold a line break`);
    const lower = name.toLowerCase();
    if (lower === 'authorization')
      throw new UsageError('-H Authorization is refused: rfs api sends the key of the profile (RFS_API_KEY or auth login)');
    if (REFUSED_HEADERS.has(lower)) throw new UsageError(`-H ${name} is refused: rfs sets it itself`);
    headers[name] = value;
  }
  return headers;
}
