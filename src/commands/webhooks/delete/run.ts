// rfs webhooks delete <id> (cli.md): asks first on a terminal; elsewhere needs --yes.
import { deleteWebhook } from '../../../api/webhooks.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../../core/errors.js';
import type { Input } from './index.js';
import { writeResource } from '../../../output/list-writer.js';
import { sanitize } from '../../../core/sanitize.js';
import { confirmAction } from '../../../prompt/confirm.js';

export function options({ args: [id] }: Input): { id: string } {
  return { id };
}

export async function run(ctx: Context, { id }: { id: string }): Promise<number> {
  if (!(await confirmAction(ctx, `Delete webhook subscription ${sanitize(id)}?`))) {
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
