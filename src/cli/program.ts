// The command tree of cli.md: the program, its global flags and its nouns. Each command declares
// itself in its own folder (src/commands/<noun>/<verb>/index.ts) and loads its code only when it
// runs, so building the whole tree costs little more than loading commander.
import { Command } from '@commander-js/extra-typings';
import api from '../commands/api/index.js';
import auth from '../commands/auth/index.js';
import completion from '../commands/completion/index.js';
import config from '../commands/config/index.js';
import completeProfiles from '../commands/complete-profiles/index.js';
import type { CommandDefinition, Dispatch } from '../commands/define.js';
import deliveries from '../commands/deliveries/index.js';
import doctor from '../commands/doctor/index.js';
import file from '../commands/file/index.js';
import mcp from '../commands/mcp/index.js';
import recordings from '../commands/recordings/index.js';
import sandbox from '../commands/sandbox/index.js';
import sync from '../commands/sync/index.js';
import verifySignature from '../commands/verify-signature/index.js';
import webhooks from '../commands/webhooks/index.js';
import { declareGlobals } from './globals.js';
import { addGlobalFooters, plainDefaults, suggestNames } from './help.js';

export type { Dispatch } from '../commands/define.js';

/**
 * The nouns, in the order `rfs --help` lists them, each with the name that starts a command line
 * of it (`test/cli/program.test.ts` checks each against its declaration). `narrow: false`: the
 * command reads the whole tree (completion scripts are made from it).
 */
const NOUNS: readonly { name: string; noun: CommandDefinition; narrow?: false }[] = [
  { name: 'auth', noun: auth },
  { name: 'recordings', noun: recordings },
  { name: 'file', noun: file },
  { name: 'webhooks', noun: webhooks },
  { name: 'deliveries', noun: deliveries },
  { name: 'verify-signature', noun: verifySignature },
  { name: 'sync', noun: sync },
  { name: 'api', noun: api },
  { name: 'config', noun: config },
  { name: 'doctor', noun: doctor },
  // Its tools are made from the whole tree (commands/mcp/tools.ts).
  { name: 'mcp', noun: mcp, narrow: false },
  { name: 'completion', noun: completion, narrow: false },
  { name: 'sandbox', noun: sandbox },
];

export interface ProgramOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

const GETTING_STARTED = `
Getting started:
  $ rfs sandbox                     # a local service with sandbox keys (another terminal)
  $ rfs auth login                  # save a key in a profile
  $ rfs recordings list             # completed recordings not filed yet

More: rfs <command> --help, rfs help exit-codes, rfs help environment
`;

/**
 * A new tree for each run: commander keeps parsed values on it. Given the run's `argv`, the tree
 * holds only the noun it starts with (`rfs recordings list …`, the noun's name first): declaring
 * every other command cost each run about a tenth of the floor of one page (bench/RESULTS.md,
 * Start-up), and a line that starts with a noun reaches nothing outside it. Any other line (a
 * flag or an alias first, `help`, a typo, `completion`) gets the whole tree.
 */
export function buildProgram(dispatch: Dispatch, output?: ProgramOutput, argv?: readonly string[]) {
  const program = new Command('rfs');
  // Set before any command is added: each one copies these settings from its parent.
  program.exitOverride();
  // cli.md: help goes to stdout, also when commander shows it for a noun given without a verb
  // (it writes that to writeErr); its error messages still go to stderr.
  if (output)
    program.configureOutput({
      writeOut: output.writeOut,
      writeErr: output.writeOut,
      outputError: (text) => output.writeErr(suggestNames(program, text)),
    });
  program
    .description('The command-line client of the Recording Filing Service, with a local sandbox of it.')
    .version(RFS_VERSION, '--version', 'print the version and exit')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command, or a topic: exit-codes, environment')
    .showSuggestionAfterError(true);
  const typed = declareGlobals(program).addHelpText('after', GETTING_STARTED);
  const first = NOUNS.find((n) => n.name === argv?.[0] && n.narrow !== false);
  for (const { noun } of first === undefined ? NOUNS : [first]) noun.mount(typed, dispatch);
  completeProfiles.mount(typed, dispatch);
  addGlobalFooters(typed);
  plainDefaults(typed);
  return typed;
}
