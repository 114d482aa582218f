// The flags that name a webhook secret, and the signature tolerance, declared once for every
// command that signs or verifies (verify-signature, webhooks listen / sign / trigger). The secret
// is never a flag value (argv leaks); webhooks/secret.ts reads what these name.
import { Option } from '@commander-js/extra-typings';
import { DEFAULT_TOLERANCE_SECONDS } from '../shared/vocabulary.js';

export const secretEnvOption = () =>
  new Option('--secret-env <VAR>', 'environment variable holding the secret (default RFS_WEBHOOK_SECRET)');

export const secretFileOption = () => new Option('--secret-file <path>', 'file holding the secret');

export const toleranceOption = () =>
  new Option('--tolerance <seconds>', 'allowed clock difference, both ways').default(String(DEFAULT_TOLERANCE_SECONDS));
