// Secrets that must never be printed, whatever text carries them: a server that echoes the key
// in a problem title, an error message that quotes a header, a query in a verbose line. API
// keys keep their prefix and last 4 characters (cli.md); other secrets keep nothing.
import { redactKey } from '../api/credentials.js';

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
