// rfs sandbox: adapts the command tree's flags to the sandbox's own runner, which takes the
// process streams and stops when Ctrl-C or SIGTERM aborts the signal.
import type { Context } from './context.js';
import type { Invocation } from '../cli/program.js';

export async function run(ctx: Context, inv: Invocation): Promise<number> {
  const { run: runSandbox } = await import('./sandbox.js');
  const o = inv.opts;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return runSandbox(
    ctx.io,
    {
      host: text(o.host),
      port: text(o.port),
      seed: text(o.seed),
      recordings: text(o.recordings),
      data: text(o.data),
      rateLimit: text(o.rateLimit),
      rateWindow: text(o.rateWindow),
      faults: text(o.faults),
      deliveryAttempts: text(o.deliveryAttempts),
      deliveryBackoff: text(o.deliveryBackoff),
      allowPrivateWebhooks: o.allowPrivateWebhooks === true ? true : undefined,
    },
    ctx.signal,
  );
}
