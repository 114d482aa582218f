// Secrets that must never be printed, whatever text carries them: a server that echoes the key
// in a problem title, an error message that quotes a header, a query in a verbose line. API
// keys keep their prefix and last 4 characters (cli.md); other secrets keep nothing.
// Errors redact their text when they are built (errors.ts), and every writer to stdout/stderr
// passes what it prints through here once more, with the key of the run when it is known.
// Part of the base layer: it imports nothing of rfs, so every folder may use it.

/** api.md, Authentication: every key starts with this prefix. */
export const API_KEY_PREFIX = 'service_pk_';

/**
 * A webhook secret shorter than this is not looked for in text: it would match ordinary words.
 * The service's secrets (`whsec_` and 32 characters) and every API key are longer.
 */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** `service_pk_…` plus the last 4 characters: the only form in which a key is ever shown. */
export function redactKey(key: string): string {
  const tail = key.length > API_KEY_PREFIX.length + 4 ? key.slice(-4) : '';
  return `${API_KEY_PREFIX}…${tail}`;
}

const API_KEY = /service_pk_[^\s&#?/"'<>,;)\]}]*/g;
const WEBHOOK_SECRET = /whsec_[^\s&#?/"'<>,;)\]}]*/g;
const SIGNATURE = /sha256(=|%3D)[0-9a-fA-F]{16,}/g;
/**
 * Query parameters whose values are secret whatever they look like. The value ends where a URL
 * value must end, and also at a quote, so that a URL inside JSON text keeps the JSON around it.
 */
const SECRET_PARAM = /([?&](?:[^=&#]*?)(?:key|secret|token|signature|password)(?:[^=&#]*)=)[^&#\s"'<>\\]*/gi;

/** JSON string content of a text (without the quotes), as rfs and servers write it. */
function jsonForms(text: string): string[] {
  const json = JSON.stringify(text).slice(1, -1);
  return [json, json.replaceAll('/', '\\/')];
}

/**
 * The one list of the forms in which a known secret (a key, a webhook secret) can come back
 * inside text: as sent, percent-encoded (a query, a URL in a problem), escaped as in a JSON
 * string (`\"`, `\\`, and `\/` as some servers write it), and escaped twice (a server's JSON
 * text printed by rfs inside JSON). A key with a `/` or a quote in it escapes the key pattern,
 * so these are matched exactly. Longest first: a form that contains another is replaced whole.
 * Used by every redaction, stderr's (below) and stdout's (redact-stream.ts).
 */
export function secretForms(secret: string): string[] {
  const once = [secret, encodeURIComponent(secret), ...jsonForms(secret)];
  return [...new Set([...once, ...once.flatMap(jsonForms)])].sort((a, b) => b.length - a.length);
}

/**
 * The secret patterns alone: an API key (kept as its prefix and last 4 characters) and a webhook
 * secret (its prefix only), wherever they appear. The inspector scrubs what senders sent with
 * this (it must keep signatures and query strings as they were: a signed curl command needs them).
 */
export function redactSecretPatterns(text: string): string {
  return text.replace(API_KEY, (key) => (key.includes('…') ? key : redactKey(key))).replace(WEBHOOK_SECRET, 'whsec_…');
}

/** Redacts secrets in any text: keys keep their last 4 characters, other secrets nothing. */
export function redactSecrets(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey) {
    for (const form of secretForms(apiKey)) out = out.split(form).join(redactKey(apiKey));
  }
  return redactSecretPatterns(out).replace(SIGNATURE, 'sha256$1…').replace(SECRET_PARAM, '$1…');
}

/** A JSON value (a problem body) with every string in it, names included, redacted. */
export function redactValue(value: unknown, apiKey?: string): unknown {
  return mapStrings(value, (text) => redactSecrets(text, apiKey));
}

/** A copy of a JSON value with `change` applied to every string in it, names included. */
export function mapStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === 'string') return change(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      // Defined, not assigned: a "__proto__" field (JSON.parse makes it an own property) stays one.
      Object.defineProperty(out, change(name), {
        value: mapStrings(item, change),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * The exact secrets one run knows (the API key of each connection it opened), for the writers
 * to stdout and stderr: what they print may not have come through an error (a server's text in
 * a result line, a command's own stderr), and a key of an unusual shape escapes the pattern.
 */
export class KnownSecrets {
  readonly #keys = new Set<string>();
  readonly #secrets = new Set<string>();
  add(apiKey: string): void {
    this.#keys.add(apiKey);
  }
  /** A webhook secret the run read: removed whole wherever it appears, whatever its shape. */
  addSecret(secret: string): void {
    if (secret.length >= MIN_KNOWN_SECRET_LENGTH) this.#secrets.add(secret);
  }
  /** Also a plain function (`secrets.redact`), to hand to a writer. */
  readonly redact = (text: string): string => {
    let out = text;
    for (const secret of this.#secrets) {
      for (const form of secretForms(secret)) out = out.split(form).join(secret.startsWith('whsec_') ? 'whsec_…' : '…');
    }
    for (const key of this.#keys) out = redactSecrets(out, key);
    return this.#keys.size === 0 ? redactSecrets(out) : out;
  };
}

// `\u2026` (…) is in the redacted forms: written as an escape, the bundle stays ASCII.
const SECRET_LIKE = /whsec_[A-Za-z0-9+/=_\u2026-]*|service_pk_[A-Za-z0-9_\u2026-]*/g;

/**
 * Text handed to another program that must not even learn a key's last characters (`rfs mcp`'s
 * answers to an agent): anything that starts like a webhook secret or an API key, redacted
 * forms included, is replaced whole.
 */
export function scrubSecretLike(text: string): string {
  return text.replace(SECRET_LIKE, (found) => (found.startsWith('whsec_') ? '[webhook secret removed]' : '[API key removed]'));
}
