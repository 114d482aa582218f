// rfs webhooks delete <id> (cli.md): asks first on a terminal; elsewhere needs --yes.
import { checkSubscriptions } from '../../../api/subscriptions.js';
import { deleteWebhook } from '../../../api/webhooks.js';
import { canPrompt } from '../../../core/io.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import type { Input } from './index.js';
import { writeResource } from '../../../output/list-writer.js';
import { sanitize } from '../../../core/sanitize.js';
import { confirmAction } from '../../../prompt/confirm.js';

/**
 * The confirmation names the subscription's URL too: an id alone does not say
 * which receiver stops getting deliveries. The URL is looked up only when a person will be
 * asked: with --yes, or without a terminal (exit 2), nothing is sent before the delete.
 */
async function question(ctx: Context, id: string): Promise<string> {
  const plain = `Delete webhook subscription ${sanitize(id)}?`;
  if (ctx.globals.yes || !canPrompt(ctx.io)) return plain;
  const subscription = (await checkSubscriptions(await ctx.api(), ctx.signal)).byId.get(id);
  if (subscription === undefined) return `Delete webhook subscription ${sanitize(id)} (not among this workspace's subscriptions)?`;
  return `Delete webhook subscription ${sanitize(id)} (${sanitize(String(subscription.url ?? ''))})?`;
}

export function options({ args: [id] }: Input): { id: string } {
  return { id };
}

export async function run(ctx: Context, { id }: { id: string }): Promise<number> {
  if (!(await confirmAction(ctx, await question(ctx, id)))) {
    ctx.io.stderr.write('Not deleted.\n');
    return EXIT.OK;
  }
  const client = await ctx.api();
  const body = await deleteWebhook(client, id, ctx.signal);
  // The answer is "not shown" (204 in the sandbox); keep whatever a server sends.
  const extra = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const result = { ...extra, id, deleted: true };
  await writeResource(ctx.io, ctx.globals.output, result, {
    color: ctx.globals.color,
    sections: () => [{ rows: [{ label: 'Deleted', value: id }] }],
  });
  return EXIT.OK;
}
