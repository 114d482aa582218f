// The control API under /_sandbox (sandbox.md, Controlling it): no key, drives what happens
// inside the service in production.
import * as z from 'zod/mini';
import '../../shared/zod-messages.js';
import { PRIORITIES, RECORDING_STATUSES } from '../../shared/schemas.js';
import { FAULT_KINDS } from '../faults.js';
import { json, notFound, type Reply } from '../problem.js';
import { jsonBody, parseQuery } from '../request.js';
import { WORKSPACES } from '../types.js';
import type { ControlRoute, RequestContext } from './route.js';

const NewRecording = z.strictObject({
  workspace: z.optional(z.enum(WORKSPACES)),
  title: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
  status: z.optional(z.enum(RECORDING_STATUSES)),
  priority: z.optional(z.enum(PRIORITIES)),
});
const StatusChange = z.strictObject({ status: z.enum(RECORDING_STATUSES) });
const FaultChange = z.strictObject({
  rate: z.number().check(z.gte(0), z.lte(1)),
  kinds: z.optional(z.array(z.enum(FAULT_KINDS))),
  delayMs: z.optional(z.nullable(z.int().check(z.gte(0), z.lte(60_000)))),
  match: z.optional(z.nullable(z.string().check(z.minLength(1)))),
});

/** An empty control body means `{}`, so `curl -X POST …/_sandbox/reset` just works. */
function body<T extends z.core.$ZodType>(ctx: RequestContext, schema: T): z.infer<T> {
  const contentType = ctx.body.length === 0 ? 'application/json' : ctx.headers['content-type'];
  return jsonBody(contentType, ctx.body.length === 0 ? Buffer.from('{}') : ctx.body, schema);
}

function createRecording(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const input = body(ctx, NewRecording);
  const rec = ctx.app.createRecording({ ...input, workspace: input.workspace ?? 'main', status: input.status ?? 'PENDING' });
  return json(201, { data: ctx.app.views.detail(rec, false) });
}

function setStatus(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const { status } = body(ctx, StatusChange);
  const rec = ctx.app.setStatus(ctx.params.id ?? '', status);
  return json(200, { data: ctx.app.views.detail(rec, false) });
}

function attempts(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const d = ctx.app.webhooks.delivery(ctx.params.id ?? '');
  if (!d) throw notFound('no such delivery');
  return json(200, { data: d.log.map((a) => ({ ...a, at: new Date(a.at).toISOString() })) });
}

function setFaults(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const input = body(ctx, FaultChange);
  ctx.app.faults.set({ rate: input.rate, kinds: [...new Set(input.kinds ?? FAULT_KINDS)], delayMs: input.delayMs ?? null, match: input.match ?? null });
  return json(200, { data: ctx.app.faults.current });
}

async function reset(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  await ctx.app.reset();
  return { status: 204 };
}

function stats(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const { app } = ctx;
  return json(200, {
    requests: app.stats.requests,
    faults: { ...app.faults.counts },
    filings: app.stats.filings,
    filingReplays: app.stats.filingReplays,
    deliveries: app.webhooks.counts(),
  });
}

export const controlRoutes: ControlRoute[] = [
  { kind: 'control', method: 'POST', path: 'recordings', handle: createRecording },
  { kind: 'control', method: 'POST', path: 'recordings/:id/status', handle: setStatus },
  { kind: 'control', method: 'GET', path: 'deliveries/:id/attempts', handle: attempts },
  { kind: 'control', method: 'POST', path: 'faults', handle: setFaults },
  { kind: 'control', method: 'POST', path: 'reset', handle: reset },
  { kind: 'control', method: 'GET', path: 'stats', handle: stats },
];
