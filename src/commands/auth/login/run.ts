// rfs auth login (cli.md, auth): asks for the base URL and the key (masked), or reads the key
// from stdin with --with-key; checks it with one request before saving it.
import type { Readable } from 'node:stream';
import { apiRoot, checkKeyFormat } from '../../../config/credentials.js';
import { readBounded } from '../../../core/bounded-read.js';
import { redactKey } from '../../../core/redact.js';
import type { Context } from '../../context.js';
import { AuthError, CancelError, EXIT, UsageError } from '../../../core/errors.js';
import { canPrompt } from '../../../core/io.js';
import { askedBaseUrl, DEFAULT_BASE_URL, selectProfile } from '../../../config/connection.js';
import { checkProfileName, openProfiles } from '../../../config/profiles.js';
import { writeResource } from '../../../output/list-writer.js';
import { checkKey } from '../check.js';
import type { Input } from './index.js';

// A key is well under a hundred bytes: stdin beyond this is a mistake (or /dev/zero), not read on.
const MAX_KEY_BYTES = 4096;

async function readKey(stream: Readable, signal: AbortSignal): Promise<string> {
  const bytes = await readBounded(stream, { limit: MAX_KEY_BYTES, what: 'stdin', kind: 'an API key', signal });
  return bytes.toString('utf8');
}

async function ask<T>(prompt: () => Promise<T>): Promise<T> {
  try {
    return await prompt();
  } catch (error) {
    if (error instanceof Error && /Exit|Abort/.test(error.name)) throw new CancelError('cancelled at the prompt');
    throw error;
  }
}

export interface LoginOptions {
  /** Read the key from stdin instead of asking. */
  withKey: boolean;
}

export function options({ flags }: Input): LoginOptions {
  return { withKey: flags.withKey === true };
}

export async function run(ctx: Context, o: LoginOptions): Promise<number> {
  const { io, globals } = ctx;
  const store = openProfiles(io.env, { clock: ctx.clock });
  const profile = checkProfileName(selectProfile(globals, io.env, store).name);
  const existing = store.get(profile);
  // A profile may hold settings before it holds a key (`rfs config set base-url … --profile ci`).
  const stored = store.settings(profile)?.baseUrl;
  const savedUrl = existing?.baseUrl ?? (typeof stored === 'string' ? stored : undefined);
  const interactive = !o.withKey && canPrompt(io);
  const prompts = interactive ? await import('../../../prompt/inquirer.js') : undefined;
  const context = { input: io.stdin, output: io.stderr, signal: ctx.signal };

  let baseUrl = askedBaseUrl(globals, io.env);
  if (baseUrl === undefined && prompts) {
    baseUrl = await ask(() =>
      prompts.input(
        {
          message: 'Service base URL',
          default: savedUrl ?? DEFAULT_BASE_URL,
          validate: (value) => {
            try {
              apiRoot(value.trim());
              return true;
            } catch (error) {
              return error instanceof Error ? error.message : 'invalid URL';
            }
          },
        },
        context,
      ),
    );
  }
  baseUrl = (baseUrl ?? savedUrl ?? DEFAULT_BASE_URL).trim();
  apiRoot(baseUrl);

  let rawKey: string;
  if (o.withKey) {
    rawKey = await readKey(io.stdin, ctx.signal);
  } else if (prompts) {
    rawKey = await ask(() => prompts.password({ message: 'API key (service_pk_…)', mask: '*' }, context));
  } else {
    throw new UsageError('no terminal to ask for the key on', {
      hint: 'pipe the key in with --with-key, e.g. printf %s "$KEY" | rfs auth login --with-key',
    });
  }
  const apiKey = checkKeyFormat(rawKey);

  const client = await ctx.connect({ profile, baseUrl, apiKey });
  const { state, error } = await checkKey(client, ctx.signal);
  if (state === 'unauthorized') {
    throw new AuthError(`the service refused the key ${redactKey(apiKey)} (401 UNAUTHORIZED): nothing was saved`, {
      cause: error,
      hint: 'check that the key is complete and not revoked',
    });
  }
  if (state === 'unreachable') throw error;
  await store.save(profile, { baseUrl, apiKey });
  if (state === 'missing scope') ctx.ui.notice('note: this key cannot read recordings (it lacks read:recordings); saved anyway');
  if (state === 'subscription required')
    ctx.ui.warn('the workspace has no eligible Pro or Enterprise plan yet (SUBSCRIPTION_REQUIRED); saved anyway');
  const isDefault = store.defaultName() === profile;
  await writeResource(
    io,
    globals.output,
    { profile, baseUrl, key: redactKey(apiKey), default: isDefault, check: state },
    {
      color: globals.color,
      sections: (v) => [
        {
          rows: [
            { label: 'Profile', value: `${v.profile}${v.default ? ' (default)' : ''}` },
            { label: 'Base URL', value: v.baseUrl },
            { label: 'Key', value: v.key },
            { label: 'Check', value: v.check },
          ],
        },
      ],
    },
  );
  ctx.ui.notice(`Saved to ${store.path}`);
  return EXIT.OK;
}
