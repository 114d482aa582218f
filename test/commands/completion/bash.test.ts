// completions/rfs.bash loaded into a real bash, asked as readline would ask it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORDING_STATUSES } from '../../../src/shared/vocabulary.js';
import { allCommands, flagsOf, ownOptions } from '../../../src/completion/tree.js';
import { BASH_SCRIPT, bashComplete, realTree } from './support.js';

const sorted = (list: readonly string[]): string[] => [...list].sort();

describe('bash completion', () => {
  it('registers _rfs for rfs without the bash-completion package', () => {
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', 'source "$1" && complete -p rfs', 'bash', BASH_SCRIPT], {
      encoding: 'utf8',
    });
    expect(result.stdout.trim()).toBe('complete -F _rfs rfs');
  });

  it('completes `rfs rec` to exactly recordings (the alias recording is accepted, not offered)', () => {
    expect(bashComplete(['rfs', 'rec'])).toEqual(['recordings']);
  });

  it('offers every top-level command for `rfs <TAB>`', () => {
    expect(sorted(bashComplete(['rfs', '']))).toEqual(
      sorted([
        'auth',
        'recordings',
        'file',
        'webhooks',
        'deliveries',
        'verify-signature',
        'sync',
        'api',
        'config',
        'doctor',
        'mcp',
        'completion',
        'sandbox',
        'help',
      ]),
    );
  });

  it('offers the settings after `rfs config set`', () => {
    expect(bashComplete(['rfs', 'config', 'set', ''])).toEqual(['base-url', 'output', 'rate', 'timeout', 'max-retries', 'provider']);
    expect(bashComplete(['rfs', 'config', 'unset', 'max'])).toEqual(['max-retries']);
  });

  it('offers the six statuses after `rfs recordings list --status`', () => {
    expect(bashComplete(['rfs', 'recordings', 'list', '--status', ''])).toEqual([...RECORDING_STATUSES]);
    expect(RECORDING_STATUSES).toHaveLength(6);
  });

  it('completes a status prefix, through aliases and after global options with values', () => {
    expect(bashComplete(['rfs', '-p', 'prod', 'recording', 'ls', '-o', 'json', '--status', 'C'])).toEqual(['CLAIMED', 'COMPLETED']);
  });

  it('completes --flag=value, split at = by COMP_WORDBREAKS or not', () => {
    expect(bashComplete(['rfs', 'recordings', 'list', '--sync-state', '=', ''])).toEqual(['unsynced', 'synced', 'all']);
    expect(bashComplete(['rfs', 'recordings', 'list', '--sync-state', '=', 's'])).toEqual(['synced']);
    expect(bashComplete(['rfs', 'recordings', 'list', '--sync-state=s'])).toEqual(['--sync-state=synced']);
  });

  it('offers the values of --include, -o/--output and --event', () => {
    expect(bashComplete(['rfs', 'recordings', 'list', '--include', ''])).toEqual(['content', 'contentJson']);
    expect(bashComplete(['rfs', 'recordings', 'get', 'rec_1', '--include', ''])).toEqual(['contentJson']);
    expect(bashComplete(['rfs', '-o', ''])).toEqual(['table', 'json', 'ndjson']);
    expect(bashComplete(['rfs', 'webhooks', 'list', '--output', 'nd'])).toEqual(['ndjson']);
    expect(bashComplete(['rfs', 'webhooks', 'create', '--url', 'https://x', '--event', ''])).toEqual(['recording.completed']);
  });

  it('offers bash zsh fish for `rfs completion <TAB>`, and nothing after the shell', () => {
    expect(bashComplete(['rfs', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete(['rfs', 'completion', 'bash', ''])).toEqual([]);
  });

  it('offers the flags of the current command and the global flags', () => {
    expect(bashComplete(['rfs', 'recordings', 'list', '--sta'])).toEqual(['--status']);
    const flags = bashComplete(['rfs', 'verify-signature', '--']);
    expect(flags).toEqual(
      expect.arrayContaining([
        '--timestamp',
        '--signature',
        '--headers',
        '--payload',
        '--secret-env',
        '--secret-file',
        '--tolerance',
        '--now',
      ]),
    );
    expect(flags).toEqual(expect.arrayContaining(['--output', '--quiet', '--no-color', '--help']));
    expect(flags).not.toContain('--status');
    expect(bashComplete(['rfs', 'verify-signature', '--timestamp', '1', '--sec'])).toEqual(['--secret-env', '--secret-file']);
  });

  it('does not treat an option value as a subcommand or a positional argument', () => {
    // "list" here is the value of --profile, so the next word is still a top-level command.
    expect(bashComplete(['rfs', '--profile', 'list', 're'])).toEqual(['recordings']);
    expect(bashComplete(['rfs', 'help', ''])).toEqual(expect.arrayContaining(['recordings', 'exit-codes', 'environment']));
  });

  it('offers file names for --payload, --headers and --secret-file, spaces included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rfs-complete-'));
    try {
      writeFileSync(join(dir, 'body.json'), '{}');
      writeFileSync(join(dir, 'body two.json'), '{}');
      writeFileSync(join(dir, 'other.txt'), '');
      for (const flag of ['--payload', '--headers', '--secret-file']) {
        expect(sorted(bashComplete(['rfs', 'verify-signature', flag, 'bo'], { cwd: dir }))).toEqual(['body two.json', 'body.json']);
      }
      // A free-text value offers nothing, not file names.
      expect(bashComplete(['rfs', 'verify-signature', '--timestamp', ''], { cwd: dir })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('offers every subcommand and every enumerated value that the program defines', () => {
    const root = realTree();
    let checked = 0;
    for (const command of allCommands(root)) {
      if (command.subcommands.length > 0) {
        expect(sorted(bashComplete(['rfs', ...command.path, '']))).toEqual(sorted(command.subcommands.map((s) => s.name)));
        checked++;
      }
      const options = command === root ? root.options : ownOptions(command, root);
      for (const option of options) {
        if (option.value?.kind !== 'choices') continue;
        for (const flag of flagsOf(option)) {
          expect(bashComplete(['rfs', ...command.path, flag, ''])).toEqual(option.value.values);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });
});
