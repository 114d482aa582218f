// webhooks listen --subscribe (cli.md, webhooks): a subscription made for this
// receiver, deleted when it stops. Its URL ends in `rfs-listen-<host>-<pid>`, so one left by a
// crash (SIGKILL, a power cut) is recognisable in `webhooks list`, and the next --subscribe from
// the same host offers to delete those whose process is gone.
import { hostname } from 'node:os';
import { newIdempotencyKey } from '../../../api/idempotency.js';
import type { ApiClient } from '../../../api/types.js';
import { createWebhook, deleteWebhook, listWebhooks } from '../../../api/webhooks.js';
import { rememberSubscriptions } from '../../remembered.js';
import { ContractError, UsageError } from '../../../core/errors.js';
import { canPrompt } from '../../../core/io.js';
import { processAlive } from '../../../core/lock.js';
import { sanitize } from '../../../core/sanitize.js';
import type { WebhookSubscription } from '../../../shared/schemas.js';
import { confirmAction } from '../../../prompt/confirm.js';
import { WEBHOOK_EVENTS } from '../../../shared/vocabulary.js';
import type { Context } from '../../context.js';
import type { Input } from './index.js';

/** This host as a URL path segment: lower case letters, digits and `-`, at most 40. */
export function hostSegment(name = hostname()): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return cleaned === '' ? 'host' : cleaned;
}

/** The path segment of this process's subscription. */
export function listenSegment(host: string, pid: number): string {
  return `rfs-listen-${host}-${pid}`;
}

/** `--public-url`: an https URL (a tunnel in front of this receiver), without query or fragment. */
export function publicUrlFlag(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid --public-url ${JSON.stringify(sanitize(value))}: expected an https URL such as https://abc.example.dev`);
  }
  if (url.protocol !== 'https:' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new UsageError(
      `invalid --public-url ${JSON.stringify(sanitize(value))}: expected an https URL without a query, fragment or credentials`,
    );
  }
  return url.href;
}

/** `base` with the segment appended to its path. */
export function subscriptionUrl(base: string, segment: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${segment}`;
  return url.href;
}

/** The pid in a subscription URL made by --subscribe on `host`, or null. */
export function leftoverPid(url: string, host: string): number | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const match = new RegExp(`/rfs-listen-${host}-(\\d{1,10})/?$`).exec(path);
  return match ? Number(match[1]) : null;
}

interface Leftover {
  subscription: WebhookSubscription & { id: string };
  pid: number;
}

async function findLeftovers(client: ApiClient, host: string, signal: AbortSignal): Promise<Leftover[]> {
  const found: Leftover[] = [];
  for await (const s of listWebhooks(client, { limit: 50, all: true, signal })) {
    const pid = leftoverPid(s.url, host);
    if (pid === null || s.id === undefined || pid === process.pid || processAlive(pid)) continue;
    found.push({ subscription: { ...s, id: s.id }, pid });
  }
  return found;
}

/**
 * Offers to delete the subscriptions earlier runs on this host left behind: asked (y/N) on a
 * terminal, deleted with --yes, named in a notice otherwise.
 */
async function offerLeftovers(ctx: Context, client: ApiClient, host: string): Promise<void> {
  for (const { subscription: s, pid } of await findLeftovers(client, host, ctx.signal)) {
    const what = `subscription ${sanitize(s.id)} (${sanitize(s.url)}) was left by rfs webhooks listen --subscribe, pid ${pid}, which is not running`;
    if (!ctx.globals.yes && !canPrompt(ctx.io)) {
      ctx.ui.notice(`${what}: delete it with rfs webhooks delete ${sanitize(s.id)} --yes, or pass --yes to delete such leftovers`);
      continue;
    }
    ctx.ui.notice(what);
    if (await confirmAction(ctx, `Delete the leftover subscription ${sanitize(s.id)}?`)) {
      await deleteWebhook(client, s.id, ctx.signal);
      ctx.ui.notice(`deleted subscription ${sanitize(s.id)}`);
    }
  }
}

export interface ListenSubscription {
  id: string;
  url: string;
  secret: string;
  /** Deletes it; runs after Ctrl-C too, so it takes no signal. */
  remove(): Promise<void>;
}

/** Makes this receiver's subscription (after offering to delete earlier leftovers). */
export async function subscribe(
  ctx: Context,
  o: { receiverUrl: string; publicUrl: string | undefined; events: readonly string[] },
): Promise<ListenSubscription> {
  const client = await ctx.api();
  const host = hostSegment();
  await offerLeftovers(ctx, client, host);
  const url = subscriptionUrl(o.publicUrl ?? o.receiverUrl, listenSegment(host, process.pid));
  const created = await createWebhook(client, { url, events: [...o.events] }, newIdempotencyKey(), ctx.signal);
  const id = created.id ?? '';
  if (id === '') throw new ContractError('the service created a subscription without an id: it cannot be deleted when listen stops');
  // Remembered: once listen deletes it, its FAILED deliveries are still found (cli.md, deliveries).
  await rememberSubscriptions(ctx, [{ id, url }]);
  return {
    id,
    url,
    secret: created.secret,
    remove: async () => {
      await deleteWebhook(client, id);
    },
  };
}

/** --subscribe and its flags, checked before anything is bound or sent. */
export function subscribeOptions(flags: Input['flags']): { publicUrl: string | undefined; events: string[] } | undefined {
  if (flags.subscribe !== true) {
    const stray = flags.publicUrl !== undefined ? '--public-url' : flags.event !== undefined ? '--event' : undefined;
    if (stray !== undefined) throw new UsageError(`${stray} needs --subscribe`);
    return undefined;
  }
  if (flags.secretEnv !== undefined || flags.secretFile !== undefined) {
    throw new UsageError("--subscribe verifies with the new subscription's own secret: leave out --secret-env and --secret-file");
  }
  return {
    publicUrl: flags.publicUrl === undefined ? undefined : publicUrlFlag(flags.publicUrl),
    events: flags.event !== undefined && flags.event.length > 0 ? [...new Set(flags.event)] : [...WEBHOOK_EVENTS],
  };
}

/**
 * The subscription and its secret, once, on stderr (as `webhooks create` shows it once): the
 * server's text escaped as all of it is (a hostile id or secret must not drive the terminal,
 * cli.md, Output: server text is escaped). With --verbose the secret is shown redacted: cli.md says -v output is safe
 * to paste, and listen verifies with the secret itself.
 */
export function announceSubscription(ctx: Context, s: ListenSubscription): void {
  ctx.ui.say(`subscribed ${s.id} to ${s.url}`);
  const what = `secret of ${s.id} (shown only this once; the subscription is deleted when listen stops):`;
  const hidden = s.secret.startsWith('whsec_') ? 'whsec_…' : '…';
  if (ctx.globals.verbose) ctx.ui.say(`${what} ${hidden} (left out with --verbose, whose output is safe to paste)`);
  else ctx.ui.say(what, { shownOnce: s.secret });
}

/** Deletes the subscription when listen stops; if that fails, says how to do it by hand. */
export async function removeSubscription(ctx: Context, s: ListenSubscription): Promise<void> {
  try {
    await s.remove();
  } catch (error) {
    ctx.ui.warn(`subscription ${s.id} was not deleted: delete it with rfs webhooks delete ${s.id} --yes`);
    throw error;
  }
  ctx.ui.notice(`deleted subscription ${s.id}`);
}
