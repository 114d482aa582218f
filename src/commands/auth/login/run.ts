// rfs auth login (cli.md, auth): asks for the base URL and the key (masked), or reads the key
// from stdin with --with-key; checks it with one request before saving it.
import type { Readable } from 'node:stream';
import { apiRoot, checkKeyFormat } from '../../../config/credentials.js';
import { readBounded } from '../../../core/bounded-read.js';
import { redactKey } from '../../../core/redact.js';
import type { Context } from '../../context.js';
import { AuthError, EXIT, UsageError } from '../../../core/errors.js';
import { canPrompt } from '../../../core/io.js';
import { baseUrlSetting, DEFAULT_BASE_URL, selectProfile, usableBaseUrl } from '../../../config/connection.js';
import { checkProfileName, openProfiles } from '../../../config/profiles.js';
import { writeResource } from '../../../output/list-writer.js';
import { ask } from '../../../prompt/ask.js';
import { checkingKey, checkKey, type KeyCheck } from '../check.js';
import type { Input } from './index.js';

// A key is well under a hundred bytes: stdin beyond this is a mistake (or /dev/zero), not read on.
const MAX_KEY_BYTES = 4096;

// An interactive login asks again after a refused key; a person who is out of keys to try
// stops with Ctrl-C, and a script that somehow answers forever stops here.
const MAX_INTERACTIVE_TRIES = 5;

async function readKey(stream: Readable, signal: AbortSignal): Promise<string> {
  const bytes = await readBounded(stream, { limit: MAX_KEY_BYTES, what: 'stdin', kind: 'an API key', signal });
  const key = bytes.toString('utf8');
  if (key.trim() === '') {
    throw new UsageError('no key was given: stdin was empty', {
      hint: 'pipe the key in, e.g. printf %s "$KEY" | rfs auth login --with-key',
    });
  }
  return key;
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
  const store = openProfiles(io.env, { clock: ctx.clock, cache: ctx.configCache, warn: (m) => ctx.ui.warn(m) });
  const profile = checkProfileName(selectProfile(globals, io.env, store).name);
  const existing = store.get(profile);
  const interactive = !o.withKey && canPrompt(io);

  // cli.md: replacing a saved key asks first where a person can answer; elsewhere it goes ahead
  // and says so once it is done.
  if (existing !== undefined && canPrompt(io) && !globals.yes) {
    const { confirmAction } = await import('../../../prompt/confirm.js');
    if (!(await confirmAction(ctx, `Profile "${profile}" already has the key ${redactKey(existing.apiKey)}. Replace it?`))) {
      io.stderr.write('Nothing changed.\n');
      return EXIT.OK;
    }
  }

  // The base URL by the settings rule: --base-url, RFS_BASE_URL, then the profile's own (it may
  // hold settings before it holds a key: `rfs config set base-url … --profile ci`), then the
  // default. A person is asked unless a flag or variable gave it, the profile's value offered.
  const base = baseUrlSetting(globals, io.env, { name: profile, stored: store.settings(profile) });
  const askUrl = async (offered: string): Promise<string> =>
    (
      await ask(ctx, (p, on) =>
        p.input(
          {
            message: 'Service base URL',
            default: offered,
            validate: (value) => {
              try {
                apiRoot(value.trim());
                return true;
              } catch (error) {
                return error instanceof Error ? error.message : 'invalid URL';
              }
            },
          },
          on,
        ),
      )
    ).trim();
  let baseUrl: string;
  const urlAsked = interactive && base.source !== 'flag' && base.source !== 'environment';
  if (!urlAsked) {
    baseUrl = usableBaseUrl(base);
  } else {
    // A bad stored one is said in the rule's words; the answer replaces it.
    if (base.refused) ctx.ui.warn(base.problem as string);
    baseUrl = await askUrl(base.refused ? DEFAULT_BASE_URL : String(base.value));
  }

  if (!o.withKey && !interactive) {
    throw new UsageError('no terminal to ask for the key on', {
      hint: 'pipe the key in with --with-key, e.g. printf %s "$KEY" | rfs auth login --with-key',
    });
  }

  let apiKey = '';
  let checked: KeyCheck;
  let askKey = true;
  for (let tries = 1; ; tries++) {
    if (!askKey) {
      // The key stays: only the URL was asked for again.
    } else if (interactive) {
      apiKey = checkKeyFormat(
        await ask(ctx, (p, on) =>
          p.password(
            {
              message: 'API key (service_pk_…)',
              mask: '*',
              // Not a green ✔ once typed: the key is not known to be good until the service
              // has answered; the check's verdict follows.
              theme: { prefix: { idle: '?', done: '·' } },
              validate: (value) => {
                try {
                  checkKeyFormat(value);
                  return true;
                } catch (error) {
                  return error instanceof Error ? error.message : 'not an API key';
                }
              },
            },
            on,
          ),
        ),
      );
    } else {
      apiKey = checkKeyFormat(await readKey(io.stdin, ctx.signal));
    }
    const client = await ctx.connect({ profile, baseUrl, apiKey }, { check: true });
    checked = await checkingKey(ctx, baseUrl, () => checkKey(client, ctx.signal, { allScopes: false }));
    askKey = true;
    if (checked.state === 'unreachable' && urlAsked && tries < MAX_INTERACTIVE_TRIES) {
      // Nothing answered there: the URL is what to ask again (the key may be fine).
      const why = checked.error instanceof Error ? checked.error.message : 'no answer';
      ctx.ui.warn(`${baseUrl} did not answer (${why}); check the URL (Ctrl-C to stop)`);
      baseUrl = await askUrl(baseUrl);
      askKey = false;
      continue;
    }
    if (checked.state !== 'unauthorized') break;
    const refused = `the service refused the key ${redactKey(apiKey)} (401 UNAUTHORIZED)`;
    if (!interactive || tries >= MAX_INTERACTIVE_TRIES) {
      throw new AuthError(`${refused}: nothing was saved`, {
        cause: checked.error,
        hint: 'check that the key is complete and not revoked',
      });
    }
    // The URL was fine (the service answered): only the key is asked for again.
    ctx.ui.warn(`${refused}; try another key (Ctrl-C to stop)`);
  }
  const { state, error } = checked;
  if (state === 'unreachable') throw error;
  await store.save(profile, { baseUrl, apiKey });
  if (existing !== undefined) ctx.ui.notice(`Replaced the key of profile "${profile}" (was ${redactKey(existing.apiKey)}).`);
  // Only a key the service judged can lack a scope: a workspace without a plan refuses every
  // request before it looks at scopes, so its key's scopes are unknown.
  if (state === 'ok' || state === 'missing scope') {
    if (!checked.readsRecordings) ctx.ui.notice('note: this key cannot read recordings (it lacks read:recordings); saved anyway');
  }
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
