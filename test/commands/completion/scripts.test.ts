// The zsh and fish scripts, checked for content (no zsh or fish is needed to run the tests), and
// `rfs completion <shell>` run through the CLI.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import { allCommands } from '../../../src/completion/tree.js';
import { bufferIO } from '../../helpers/io.js';
import { completionScript, realTree } from './support.js';

const STATUSES = 'DRAFT PENDING CLAIMED REVIEW_PENDING COMPLETED ARCHIVED';

describe('zsh script', () => {
  const zsh = completionScript('zsh');

  it('is a #compdef file that also works when sourced', () => {
    expect(zsh.startsWith('#compdef rfs\n')).toBe(true);
    expect(zsh).toContain('compdef _rfs rfs');
  });

  it('has one function per command, each dispatched from its parent by name and alias', () => {
    for (const command of allCommands(realTree())) {
      const name = ['_rfs_cmd', ...command.path.map((p) => p.replace(/-/g, '_'))].join('_');
      expect(zsh).toContain(`\n${name}() {`);
    }
    expect(zsh).toContain('recordings|recording) _rfs_cmd_recordings && ret=0 ;;');
    expect(zsh).toContain('list|ls) _rfs_cmd_recordings_list && ret=0 ;;');
  });

  it('completes the enumerated values of options and arguments', () => {
    // Through _rfs_choices, which matches in any letter case (the real zsh: shells.test.ts).
    expect(zsh).toContain(`'--status=[recording status]:status:{_rfs_choices ${STATUSES}}'`);
    expect(zsh).toContain("'--sync-state=[filing state]:state:{_rfs_choices unsynced synced all}'");
    expect(zsh).toContain(
      "'(-o --output)-o+[output format (default: table on a terminal, json otherwise)]:format:{_rfs_choices table json ndjson}'",
    );
    expect(zsh).toContain("'*--event=[event to send (repeatable)]:name:{_rfs_choices recording.completed}'");
    expect(zsh).toContain("'1:bash, zsh or fish:{_rfs_choices bash zsh fish}'");
    expect(zsh).toContain(":file:_files'");
  });
});

describe('fish script', () => {
  const fish = completionScript('fish');

  it('turns file names off except where a value is a path', () => {
    expect(fish).toContain('\ncomplete -c rfs -f\n');
    expect(fish).toMatch(/-n '__rfs_at \\'rfs verify-signature\\'' -l payload -r -F/);
  });

  it('offers each command under its parent, and values for options and arguments', () => {
    for (const command of allCommands(realTree())) {
      if (command.path.length === 0) continue;
      const parent = ['rfs', ...command.path.slice(0, -1)].join(' ');
      expect(fish).toContain(`complete -c rfs -n '__rfs_at \\'${parent}\\' 0' -a '${command.name}'`);
    }
    expect(fish).toContain(`complete -c rfs -n '__rfs_at \\'rfs recordings list\\'' -l status -x -a '${STATUSES}'`);
    // Global options everywhere but under the standalone commands (sandbox, completion).
    expect(fish).toContain("complete -c rfs -n 'not __rfs_standalone' -s o -l output -x -a 'table json ndjson'");
    expect(fish).toContain("complete -c rfs -n '__rfs_at \\'rfs completion\\' 0' -a 'bash zsh fish'");
    // Aliases resolve to the command when the path is computed.
    expect(fish).toContain("case 'rfs recordings' 'rfs recording'\n            echo 'recordings'");
  });
});

describe('rfs completion <shell>', () => {
  it.each(['bash', 'zsh', 'fish'] as const)('prints the %s script and exits 0', async (shell) => {
    const t = bufferIO();
    const code = await runCli(['completion', shell], t.io);
    await new Promise((resolve) => setImmediate(resolve));
    expect(code).toBe(0);
    expect(t.stdout()).toBe(completionScript(shell));
    expect(t.stderr()).toBe('');
  });

  it('exits 2 for a shell it does not know', async () => {
    const t = bufferIO();
    const code = await runCli(['completion', 'tcsh'], t.io);
    expect(code).toBe(2);
    expect(t.stdout()).toBe('');
  });
});
