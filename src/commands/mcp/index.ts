// rfs mcp: the declaration; the code is in run.ts (the MCP SDK loads only there).
import { Command } from '@commander-js/extra-typings';
import { defineCommand, examples, type Parsed } from '../define.js';

const declare = () =>
  new Command('mcp')
    .description('serve rfs to an AI agent: a Model Context Protocol server on stdin and stdout, read-only unless --allow-write')
    .option('--allow-write', 'also offer the tools that change something: file, deliveries replay, webhooks create and delete')
    .option('--budget <n>', "requests a minute the agent's calls may send, 1-120 (default: 12), so that it cannot starve the integration")
    .addHelpText(
      'after',
      `${examples(['rfs mcp', 'rfs mcp --profile prod --budget 30', 'rfs mcp --allow-write'])}
Tools (docs/agents.md): recordings_list, recordings_get, deliveries_list,
deliveries_summary, deliveries_replay_dry_run, webhooks_list, doctor and
sync_status; with --allow-write also file, deliveries_replay (only the ids a
dry run listed), webhooks_create and webhooks_delete. Each answers the
command's JSON, its notices and its exit code; never a key or a webhook secret.
`,
    );

export type Input = Parsed<ReturnType<typeof declare>>;
export default defineCommand(declare, () => import('./run.js'));
