// Secrets that must never be printed, whatever text carries them: a server that echoes the key
// in a problem title, an error message that quotes a header, a query in a verbose line. API
// keys keep their prefix and last 4 characters (cli.md); other secrets keep nothing.
// Part of the base layer: it imports nothing of rfs, so every folder may use it.

/** api.md, Authentication: every key starts with this prefix. */
export const API_KEY_PREFIX = 'service_pk_';

/** `service_pk_…` plus the last 4 characters: the only form in which a key is ever shown. */
export function redactKey(key: string): string {
  const tail = key.length > API_KEY_PREFIX.length + 4 ? key.slice(-4) : '';
  return `${API_KEY_PREFIX}…${tail}`;
}

const API_KEY = /service_pk_[^\s&#?/"'<>,;)\]}]*/g;
const WEBHOOK_SECRET = /whsec_[^\s&#?/"'<>,;)\]}]*/g;
const SIGNATURE = /sha256(=|%3D)[0-9a-fA-F]{16,}/g;
/** Query parameters whose values are secret whatever they look like. */
const SECRET_PARAM = /([?&](?:[^=&#]*?)(?:key|secret|token|signature|password)(?:[^=&#]*)=)[^&#\s]*/gi;

/** Redacts secrets in any text: keys keep their last 4 characters, other secrets nothing. */
export function redactSecrets(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey) {
    out = out.split(apiKey).join(redactKey(apiKey));
    const encoded = encodeURIComponent(apiKey);
    if (encoded !== apiKey) out = out.split(encoded).join(redactKey(apiKey));
  }
  return out
    .replace(API_KEY, (key) => (key.includes('…') ? key : redactKey(key)))
    .replace(WEBHOOK_SECRET, 'whsec_…')
    .replace(SIGNATURE, 'sha256$1…')
    .replace(SECRET_PARAM, '$1…');
}
