// Where a webhook signing secret comes from (cli.md, verify-signature and webhooks listen):
// --secret-file, --secret-env <VAR>, else RFS_WEBHOOK_SECRET. Never a flag value: argv leaks
// into shell history and `ps`. No message here ever contains the secret, nor a value that could
// be one (a secret pasted where a variable name or a path was expected).
import { readBounded } from '../core/bounded-read.js';
import { RfsError, UsageError } from '../core/errors.js';

export const DEFAULT_SECRET_ENV = 'RFS_WEBHOOK_SECRET';

/** A secret is a short string; a larger file is a mistake (or /dev/zero), refused unread. */
export const MAX_SECRET_BYTES = 4096;

const THREE_WAYS = `give the webhook secret with --secret-file <path>, --secret-env <VAR>, or the ${DEFAULT_SECRET_ENV} environment variable`;

export interface SecretSource {
  /** --secret-env: the name of an environment variable, not the secret. */
  secretEnv?: string | undefined;
  /** --secret-file: a file holding the secret; a trailing newline is ignored. */
  secretFile?: string | undefined;
}

export interface SecretDeps {
  env: NodeJS.ProcessEnv;
  readFile?: (path: string) => Promise<Buffer>;
  /** Told the secret once it is read, so that the run's writers redact it (the Context's knowSecret). */
  onSecret?: (secret: string) => void;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Only a conventional upper-case name is echoed back: anything else may be the secret itself.
const SHOWABLE_NAME = /^[A-Z_][A-Z0-9_]*$/;

function errnoCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}

async function fromFile(path: string, read: (path: string) => Promise<Buffer>): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await read(path);
  } catch (error) {
    if (error instanceof RfsError) throw error;
    // The path is not repeated: a secret pasted in place of a path would be printed otherwise.
    throw new UsageError(`cannot read the file given to --secret-file (${errnoCode(error)})`, { cause: error });
  }
  // `echo "$SECRET" > file` adds a newline that is not part of the secret.
  const secret = bytes.toString('utf8').replace(/[\r\n]+$/, '');
  if (secret === '') throw new UsageError('the file given to --secret-file is empty', { hint: THREE_WAYS });
  return secret;
}

const readSecretFile = (path: string): Promise<Buffer> =>
  readBounded(path, { limit: MAX_SECRET_BYTES, what: 'the file given to --secret-file', kind: 'a webhook secret' });

function variableLabel(name: string): string {
  return SHOWABLE_NAME.test(name) ? `the environment variable ${name}` : 'the environment variable given to --secret-env';
}

/** Where the secret is read from, for a notice: never the secret, nor a value that could be one. */
export function describeSecretSource(source: SecretSource): string {
  if (source.secretFile !== undefined) return 'the file given to --secret-file';
  return variableLabel(source.secretEnv ?? DEFAULT_SECRET_ENV);
}

function fromEnv(name: string, env: NodeJS.ProcessEnv, flagGiven: boolean): string {
  if (!VARIABLE_NAME.test(name)) {
    throw new UsageError(`--secret-env takes the name of an environment variable (such as ${DEFAULT_SECRET_ENV}), not the secret itself`);
  }
  const value = env[name];
  if (value === undefined || value === '') {
    throw new UsageError(flagGiven ? `${variableLabel(name)} is not set or empty` : `no webhook secret: ${DEFAULT_SECRET_ENV} is not set`, {
      hint: THREE_WAYS,
    });
  }
  return value;
}

/** The secret, or a UsageError (exit 2) that names the three ways to give it. */
export async function readWebhookSecret(source: SecretSource, deps: SecretDeps): Promise<string> {
  if (source.secretEnv !== undefined && source.secretFile !== undefined) {
    throw new UsageError('--secret-env and --secret-file cannot be used together: give the secret one way');
  }
  let secret: string;
  if (source.secretFile !== undefined) secret = await fromFile(source.secretFile, deps.readFile ?? readSecretFile);
  else if (source.secretEnv !== undefined) secret = fromEnv(source.secretEnv, deps.env, true);
  else secret = fromEnv(DEFAULT_SECRET_ENV, deps.env, false);
  deps.onSecret?.(secret);
  return secret;
}
