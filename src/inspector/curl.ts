// Copy as curl (cli.md, webhooks listen --inspect: Trust): a delivery as a command that sends its
// signature headers and its body byte for byte, never makes curl read a file, and is safe to
// paste. A body a shell word cannot carry, and one too long for one argument, goes as base64.

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

// C0 but \t and \n, DEL and C1, and the bidi and invisible characters the terminal escapes.
const UNPASTEABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/u;

/**
 * The bytes as text a shell word carries byte for byte and a paste cannot turn into keystrokes:
 * valid UTF-8 with no control character but newline and tab, no DEL, C1, bidi or invisible
 * character; undefined otherwise.
 */
function pasteable(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) && !UNPASTEABLE.test(text) ? text : undefined;
}

/** Base64 in lines of 76, as `base64` writes it. */
function base64Lines(bytes: Buffer): string[] {
  const text = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += 76) lines.push(text.slice(i, i + 76));
  return lines;
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
    if (name.startsWith('x-service-') || name === 'content-type') lines.push(`  -H ${shellWord(`${name}: ${value}`)}`);
  }
  const text = body.length <= MAX_ARGUMENT_BODY_BYTES ? pasteable(body) : undefined;
  if (text !== undefined) {
    lines.push(`  --data-raw ${shellWord(text)}`);
    return `${lines.join(' \\\n')}\n`;
  }
  lines.push('  --data-binary @-');
  return `base64 -d <<'${BODY_END}' | ${lines.join(' \\\n')}\n${base64Lines(body).join('\n')}\n${BODY_END}\n`;
}
