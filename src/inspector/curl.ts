// Copy as curl (cli.md, webhooks listen --inspect: Trust): a delivery as a command that sends its
// signature headers and its body byte for byte, never makes curl read a file, and is safe to
// paste: what the terminal's escaping (core/sanitize.ts) would show escaped never appears raw in
// it, in the body or in a header. Such text, and a body too long for one argument, goes as base64.
import { showsAsIs } from '../core/sanitize.js';

/**
 * Bodies past this go on curl's stdin, not as an argument: Linux takes at most 128 KiB in one
 * argument ("Argument list too long"), and a paste of a long line is slow in many terminals.
 */
export const MAX_ARGUMENT_BODY_BYTES = 64 * 1024;
/** The end of the here-document that holds a body as base64: never a base64 line (it has `_`). */
const BODY_END = 'RFS_BODY_END';

/** A POSIX shell word: single quotes, each quote inside closed, escaped and opened again. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:=+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The bytes as text a shell word carries byte for byte and a paste cannot turn into keystrokes or
 * hide: valid UTF-8 that the terminal's escaping leaves as it is (newline and tab too, in a body:
 * `multiline`); undefined otherwise.
 */
function pasteable(bytes: Buffer, multiline: boolean): string | undefined {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) && showsAsIs(text, { multiline }) ? text : undefined;
}

/** Base64 in lines of 76, as `base64` writes it. */
function base64Lines(bytes: Buffer): string[] {
  const text = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 76) lines.push(text.slice(i, i + 76));
  return lines;
}

/**
 * One `-H` argument. A header value arrives as bytes (node:http reads them as latin1, a byte a
 * character): it goes as those bytes, as text when it is pasteable UTF-8, else decoded from base64
 * by the shell (`$(…)`: a header holds no line end, which a command substitution would strip).
 */
function headerArgument(name: string, value: string): string {
  const bytes = Buffer.from(value, 'latin1');
  const text = pasteable(bytes, false);
  if (text !== undefined) return `-H ${shellWord(`${name}: ${text}`)}`;
  return `-H "${name}: $(printf '%s' ${bytes.toString('base64')} | base64 -d)"`;
}

/**
 * The delivery as a curl command: its signature headers and body as sent (never the secret). The
 * body goes byte for byte and is never a file name: `--data-raw` (curl reads no `@file` from it),
 * or, for bytes a shell word cannot carry or a paste would not show, and for a body past
 * MAX_ARGUMENT_BODY_BYTES, base64 in a here-document decoded onto curl's stdin (`--data-binary @-`).
 */
export function curlCommand(url: string, headers: Record<string, string>, body: Buffer): string {
  const lines = [`curl -sS -X POST ${shellWord(url)}`];
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith('x-service-') || name === 'content-type') lines.push(`  ${headerArgument(name, value)}`);
  }
  const text = body.length <= MAX_ARGUMENT_BODY_BYTES ? pasteable(body, true) : undefined;
  if (text !== undefined) {
    lines.push(`  --data-raw ${shellWord(text)}`);
    return `${lines.join(' \\\n')}\n`;
  }
  lines.push('  --data-binary @-');
  return `base64 -d <<'${BODY_END}' | ${lines.join(' \\\n')}\n${base64Lines(body).join('\n')}\n${BODY_END}\n`;
}
