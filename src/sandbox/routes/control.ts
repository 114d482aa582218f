// The control API under /_sandbox (sandbox.md, Controlling it): no key, drives what happens
// inside the service in production.
import * as z from 'zod/mini';
import '../../shared/zod-messages.js';
import { PRIORITIES, RECORDING_STATUSES } from '../../shared/schemas.js';
import { FAULT_KINDS } from '../faults.js';
import { RECEIVER_MODES } from '../receivers.js';
import { MAX_STATE_DEPTH, checkState, issuePath, withSeed } from '../persistence.js';
import { ProblemError, json, notFound, type Reply } from '../problem.js';
import { firstRefusedUrl } from '../url-guard.js';
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
const Rate = z.number().check(z.gte(0), z.lte(1));
const DelayMs = z.int().check(z.gte(0), z.lte(60_000));
const ScriptStep = z.strictObject({
  match: z.optional(z.nullable(z.string().check(z.minLength(1)))),
  method: z.optional(z.nullable(z.enum(['GET', 'POST', 'DELETE']))),
  kind: z.enum(FAULT_KINDS),
  times: z.int().check(z.gte(1), z.lte(10_000)),
  delayMs: z.optional(z.nullable(DelayMs)),
});
const FaultChange = z
  .strictObject({
    rate: z.optional(Rate),
    kinds: z.optional(z.array(z.enum(FAULT_KINDS))),
    delayMs: z.optional(z.nullable(DelayMs)),
    match: z.optional(z.nullable(z.string().check(z.minLength(1)))),
    script: z.optional(z.array(ScriptStep).check(z.maxLength(1000))),
  })
  .check(
    z.refine((change) => change.rate !== undefined || change.script !== undefined, {
      message: 'give a rate, a script, or both',
      path: ['rate'],
    }),
  );
const DeliveryFaultChange = z.strictObject({ duplicate: z.optional(Rate), stale: z.optional(Rate), badSignature: z.optional(Rate) });
const ReceiverChange = z.strictObject({ mode: z.enum(RECEIVER_MODES) });
const SnapshotName = z.string().check(z.regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be 1 to 100 letters, digits, or . _ -'));
const NewSnapshot = z.strictObject({ name: SnapshotName });

/** A bad control body: unlike /api/v1, the answer names the field, since a test wants to know. */
function invalidBody(path: string, message: string): ProblemError {
  const where = path === '' ? 'body' : path;
  return new ProblemError('INVALID_INPUT', `${where}: ${message}`, { extra: { detail: `${where}: ${message}`, path } });
}

/** An empty control body means `{}` (its content type must still say JSON: control-guard.ts). */
function body<T extends z.core.$ZodType>(ctx: RequestContext, schema: T): z.infer<T> {
  const value = anyJson(ctx);
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalidBody(issuePath(issue?.path ?? []), issue?.message ?? 'not of the documented shape');
}

function anyJson(ctx: RequestContext, maxDepth?: number): unknown {
  const contentType = ctx.body.length === 0 ? 'application/json' : ctx.headers['content-type'];
  return jsonBody(contentType, ctx.body.length === 0 ? Buffer.from('{}') : ctx.body, z.unknown(), maxDepth);
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

/**
 * Sets the whole fault set-up: what the body leaves out takes its default (rate 0, every kind,
 * no script), so `{rate: 0}` turns every fault off. The answer shows the script left, if any.
 */
function setFaults(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const input = body(ctx, FaultChange);
  const { faults } = ctx.app;
  faults.set({
    rate: input.rate ?? 0,
    kinds: [...new Set(input.kinds ?? FAULT_KINDS)],
    delayMs: input.delayMs ?? null,
    match: input.match ?? null,
  });
  faults.setScript(
    (input.script ?? []).map((step) => ({
      match: step.match ?? null,
      method: step.method ?? null,
      kind: step.kind,
      times: step.times,
      delayMs: step.delayMs ?? null,
    })),
  );
  return json(200, { data: faultsView(ctx) });
}

function faultsView(ctx: RequestContext): Record<string, unknown> {
  const script = ctx.app.faults.remainingScript;
  return { ...ctx.app.faults.current, ...(script.length > 0 ? { script } : {}) };
}

function getFaults(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  return json(200, { data: faultsView(ctx) });
}

function setDeliveryFaults(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const input = body(ctx, DeliveryFaultChange);
  ctx.app.deliveryFaults.set({ duplicate: input.duplicate ?? 0, stale: input.stale ?? 0, badSignature: input.badSignature ?? 0 });
  return json(200, { data: ctx.app.deliveryFaults.current });
}

function listReceivers(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  return json(200, { data: ctx.app.receivers() });
}

async function setReceiver(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  const { mode } = body(ctx, ReceiverChange);
  const view = await ctx.app.setReceiverMode(ctx.params.name ?? '', mode);
  if (!view) throw notFound('no receiver of that name (the receivers are those of --scenario incident: healthy, failing, deleted)');
  return json(200, { data: view });
}

function health(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  return json(200, { status: 'ok' });
}

function listRequests(ctx: RequestContext): Reply {
  const q = parseQuery(ctx.query, ['since']);
  const raw = q.get('since');
  const since = raw === undefined ? 0 : /^[0-9]{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isNaN(since)) throw invalidBody('since', 'must be a sequence number, 0 or more');
  const data = ctx.app.requestLog.since(since);
  return json(200, { data, meta: { count: data.length, lastSeq: ctx.app.requestLog.lastSeq } });
}

function clearRequests(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  ctx.app.requestLog.clear();
  return { status: 204 };
}

/**
 * The state without its seed unless `?includeSeed=1` asks for it: every key of the sandbox is
 * derived from the seed, so a state passed around (a fixture in a repository, a CI artefact)
 * would otherwise hand out the keys of every sandbox started with it.
 */
function exportState(ctx: RequestContext): Reply {
  const q = parseQuery(ctx.query, ['includeSeed']);
  const include = q.get('includeSeed');
  if (include !== undefined && !['0', '1', 'true', 'false'].includes(include)) throw invalidBody('includeSeed', 'must be 1 or 0');
  const { seed, ...rest } = ctx.app.snapshot();
  return json(200, include === '1' || include === 'true' ? { ...rest, seed } : rest);
}

/** The body is a whole state, as GET answers it; a plain list of recordings is for --fixtures only. */
async function importState(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  const value = anyJson(ctx, MAX_STATE_DEPTH);
  if (Array.isArray(value)) throw invalidBody('', 'expected a whole state (as GET /_sandbox/state answers), not a list');
  // A state exported without its seed (the default) is taken as made by this sandbox.
  const checked = checkState(withSeed(value, ctx.app.seed));
  if (!checked.ok) throw invalidBody(checked.path, checked.message);
  if (checked.state.seed !== ctx.app.seed)
    throw invalidBody('seed', `the state was made with another seed; this sandbox's keys come from ${JSON.stringify(ctx.app.seed)}`);
  const refused = await firstRefusedUrl(
    checked.state.subscriptions.map((s) => s.url),
    ctx.app.urlPolicy,
  );
  if (refused) throw invalidBody(`subscriptions[${refused.index}].url`, refused.reason);
  await ctx.app.replaceState(checked.state);
  return { status: 204 };
}

function saveSnapshot(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  const { name } = body(ctx, NewSnapshot);
  ctx.app.saveSnapshot(name);
  return json(201, { data: { name } });
}

function deleteSnapshot(ctx: RequestContext): Reply {
  parseQuery(ctx.query, []);
  if (!ctx.app.deleteSnapshot(ctx.params.name ?? '')) throw notFound('no snapshot of that name');
  return { status: 204 };
}

async function restoreSnapshot(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  body(ctx, z.strictObject({}));
  if (!(await ctx.app.restoreSnapshot(ctx.params.name ?? ''))) throw notFound('no snapshot of that name');
  return { status: 204 };
}

async function reset(ctx: RequestContext): Promise<Reply> {
  parseQuery(ctx.query, []);
  body(ctx, z.strictObject({}));
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
  { kind: 'control', method: 'GET', path: 'faults', handle: getFaults },
  { kind: 'control', method: 'POST', path: 'faults', handle: setFaults },
  { kind: 'control', method: 'POST', path: 'delivery-faults', handle: setDeliveryFaults },
  { kind: 'control', method: 'GET', path: 'receivers', handle: listReceivers },
  { kind: 'control', method: 'POST', path: 'receivers/:name', handle: setReceiver },
  { kind: 'control', method: 'GET', path: 'health', handle: health },
  { kind: 'control', method: 'GET', path: 'requests', handle: listRequests },
  { kind: 'control', method: 'DELETE', path: 'requests', handle: clearRequests },
  { kind: 'control', method: 'GET', path: 'state', handle: exportState },
  { kind: 'control', method: 'PUT', path: 'state', handle: importState },
  { kind: 'control', method: 'POST', path: 'snapshots', handle: saveSnapshot },
  { kind: 'control', method: 'POST', path: 'snapshots/:name/restore', handle: restoreSnapshot },
  { kind: 'control', method: 'DELETE', path: 'snapshots/:name', handle: deleteSnapshot },
  { kind: 'control', method: 'POST', path: 'reset', handle: reset },
  { kind: 'control', method: 'GET', path: 'stats', handle: stats },
];
