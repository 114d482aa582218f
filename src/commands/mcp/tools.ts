// rfs mcp's tools, made from the command tree as the shell completions see it
// (completion/tree.ts): the same names, descriptions, arguments and choices as --help and the
// completions, so that a flag added to a command is a tool's field with nothing else to change.
// This file says only which commands are tools, which of their flags an agent may not give (and
// why), and which flags a tool always gives.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import {
  buildCompletionTree,
  type CompletionArgument,
  type CompletionCommand,
  type CompletionOption,
  ownOptions,
} from '../../completion/tree.js';

export interface ToolSpec {
  /** The command's words: `['deliveries', 'summary']`. */
  path: readonly string[];
  /** The tool's name; default the words joined by `_` (MCP names: letters, digits, `_`, `-`). */
  name?: string;
  /** Changes something: offered only with --allow-write, and annotated as destructive. */
  write: boolean;
  /** Words every call gives (`--all-failed --dry-run`), before the agent's. */
  fixed?: readonly string[];
  /** Flags (long name without `--`) and arguments the tool does not offer. */
  omit?: readonly string[];
  /** Arguments the command makes optional and the tool requires. */
  require?: readonly string[];
  /** What the tool does beyond the command's description (where `fixed` narrows it). */
  note?: string;
  /** Sends nothing to the service: not held to the budget. */
  local?: boolean;
  /** What a call costs of the budget, where it is more than a request or a page: said in the description. */
  cost?: string;
  /** The notices the tool answers in place of the command's, where the command's would not be true over MCP. */
  notices?: readonly string[];
  /** Flags whose `@file` form (read a file on this machine) the tool refuses: an agent sends the text itself. */
  noFiles?: readonly string[];
}

/** The tools, in the order tools/list gives them: the read-only ones, then those that change something. */
export const TOOL_SPECS: readonly ToolSpec[] = [
  { path: ['recordings', 'list'], write: false },
  { path: ['recordings', 'get'], write: false },
  { path: ['deliveries', 'list'], write: false },
  {
    path: ['deliveries', 'summary'],
    write: false,
    cost: 'Costs 3 requests or more of the budget: GET /webhooks (one a page of 50 subscriptions), the FAILED list and the PENDING list, and for a list that comes back full (50 rows) one more per subscription, live or remembered as deleted. No list is asked twice in a call; the answer\'s "requests" says how many were sent.',
  },
  {
    path: ['deliveries', 'replay'],
    name: 'deliveries_replay_dry_run',
    write: false,
    fixed: ['--all-failed', '--dry-run'],
    omit: ['delivery-id', 'all-failed', 'dry-run', 'wait', 'wait-timeout'],
    note: 'Here always as --all-failed --dry-run: lists the FAILED deliveries a replay would send again and sends nothing; deliveries_replay (with --allow-write) takes the ids it lists.',
    cost: 'Costs 1 or 2 requests of the budget: the FAILED list, and GET /webhooks (one a page of 50 subscriptions) when a row names a subscription; with since, until or error and a FAILED list that comes back full (50 rows), also one FAILED list per subscription. No list is asked twice in a call; the answer\'s "requests" says how many were sent.',
  },
  { path: ['webhooks', 'list'], write: false },
  { path: ['doctor'], write: false },
  // The profile's own journal only: --journal would let an agent open any file this user can
  // read (its warnings name each line that is not JSON), as @file would for metadata.
  { path: ['sync', 'status'], write: false, local: true, omit: ['journal'] },
  // A batch (--from) reads a file or stdin, which an agent's call does not have: one recording a call.
  { path: ['file'], write: true, omit: ['from', 'fail-fast'], require: ['id'], noFiles: ['metadata'] },
  {
    path: ['deliveries', 'replay'],
    write: true,
    // By the ids a dry run listed only: never every FAILED delivery at once (--all-failed).
    omit: ['all-failed', 'subscription', 'dry-run', 'max', 'since', 'until', 'error'],
    require: ['delivery-id'],
    fixed: ['--yes'],
    note: 'Only ids that deliveries_replay_dry_run listed in this session are taken.',
  },
  {
    path: ['webhooks', 'create'],
    write: true,
    // The command's "shown only this once: store it now" is false here: no secret reaches an agent.
    note: "The new subscription's secret is withheld from the agent, and the service shows it only at creation.",
    notices: [
      'The secret of the new subscription is withheld (no secret reaches an agent) and the service shows it only at creation: to verify its deliveries, delete it (webhooks_delete) and create one with `rfs webhooks create` in a terminal.',
    ],
  },
  { path: ['webhooks', 'delete'], write: true, fixed: ['--yes'] },
];

export type JsonSchema = Record<string, unknown>;

export interface Tool {
  name: string;
  spec: ToolSpec;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[]; additionalProperties: false };
  /** The field of each flag the tool offers, and the option it stands for. */
  options: Map<string, CompletionOption>;
  arguments: CompletionArgument[];
}

/** The tools of `specs` over the command tree under `root` (the program). */
export function makeTools(root: CommandUnknownOpts, specs: readonly ToolSpec[]): Tool[] {
  const tree = buildCompletionTree(root);
  return specs.map((spec) => makeTool(tree, spec));
}

function find(tree: CompletionCommand, path: readonly string[]): CompletionCommand {
  let node = tree;
  for (const word of path) {
    const next = node.subcommands.find((c) => c.name === word);
    if (next === undefined) throw new Error(`rfs mcp: no command ${path.join(' ')}`);
    node = next;
  }
  return node;
}

function makeTool(tree: CompletionCommand, spec: ToolSpec): Tool {
  const command = find(tree, spec.path);
  const omit = new Set(spec.omit ?? []);
  const require = new Set(spec.require ?? []);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const args = command.arguments.filter((a) => !omit.has(a.name));
  for (const a of args) {
    const one = withChoices({ type: 'string' }, a.value);
    properties[a.name] = a.variadic
      ? { type: 'array', items: one, description: a.description, ...(a.required || require.has(a.name) ? { minItems: 1 } : {}) }
      : { ...one, description: a.description };
    if (a.required || require.has(a.name)) required.push(a.name);
  }
  const options = new Map<string, CompletionOption>();
  for (const o of ownOptions(command, tree)) {
    const name = o.long?.replace(/^--/, '');
    if (name === undefined || omit.has(name)) continue;
    options.set(name, o);
    if (o.value === undefined) properties[name] = { type: 'boolean', description: o.description };
    else {
      const one = withChoices({ type: 'string' }, o.value);
      properties[name] = o.repeatable ? { type: 'array', items: one, description: o.description } : { ...one, description: o.description };
    }
  }
  for (const name of [...omit, ...require]) {
    if (!(name in properties) && !command.options.some((o) => o.long === `--${name}`) && !command.arguments.some((a) => a.name === name))
      throw new Error(`rfs mcp: ${spec.path.join(' ')} has no flag or argument ${name}`);
  }
  const name = spec.name ?? spec.path.join('_');
  const description = [
    `rfs ${spec.path.join(' ')}: ${command.description}.`,
    spec.note ?? '',
    spec.write ? 'Changes something (offered because rfs mcp was started with --allow-write).' : 'Read-only.',
    spec.cost ?? '',
  ]
    .filter((s) => s !== '')
    .join(' ');
  return {
    name,
    spec,
    description,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    options,
    arguments: args,
  };
}

function withChoices(schema: JsonSchema, value: CompletionOption['value'] | CompletionArgument['value']): JsonSchema {
  return value?.kind === 'choices' ? { ...schema, enum: value.values } : schema;
}

/**
 * The command line of one call: the command's words, the fixed ones, each flag given as
 * `--name=value` (a value that starts with `-` stays a value), and the arguments after `--`.
 * Throws a TypeError naming the field for anything the schema does not allow.
 */
export function commandLine(tool: Tool, input: Record<string, unknown>, globals: readonly string[] = []): string[] {
  const words: string[] = [...tool.spec.path, ...(tool.spec.fixed ?? [])];
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    const option = tool.options.get(field);
    if (option === undefined) {
      if (tool.arguments.some((a) => a.name === field)) continue;
      throw new TypeError(`${tool.name} has no field ${field}`);
    }
    const flag = option.long as string;
    if (option.value === undefined) {
      if (typeof value !== 'boolean') throw new TypeError(`${field} is true or false`);
      if (value) words.push(flag);
      continue;
    }
    for (const one of option.repeatable && Array.isArray(value) ? value : [value]) {
      const text = scalar(field, one);
      if (tool.spec.noFiles?.includes(field) && text.startsWith('@'))
        throw new TypeError(`${field} is the JSON text itself here: @file would read a file`);
      words.push(`${flag}=${text}`);
    }
  }
  const positional: string[] = [];
  for (const a of tool.arguments) {
    const value = input[a.name];
    if (value === undefined || value === null) continue;
    if (a.variadic) {
      if (!Array.isArray(value)) throw new TypeError(`${a.name} is a list`);
      positional.push(...value.map((v) => scalar(a.name, v)));
    } else positional.push(scalar(a.name, value));
  }
  for (const name of tool.inputSchema.required ?? []) {
    const value = input[name];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) throw new TypeError(`${name} is required`);
  }
  return [...words, ...globals, ...(positional.length > 0 ? ['--', ...positional] : [])];
}

/** A flag's or an argument's value: text, or a number written as the command line would have it. */
function scalar(field: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new TypeError(`${field} is text`);
}
