// The completion tree read from commander: the real program, and a small one with every shape.
import { Argument, Command, Option } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { allCommands, buildCompletionTree, flagsOf, ownOptions } from '../../../src/completion/tree.js';
import { RECORDING_STATUSES, SYNC_STATES } from '../../../src/shared/vocabulary.js';
import { realTree } from './support.js';

describe('the completion tree of rfs', () => {
  const root = realTree();
  const find = (...path: string[]) => allCommands(root).find((c) => c.path.join(' ') === path.join(' '));

  it('holds every command of cli.md, with its aliases', () => {
    const paths = allCommands(root).map((c) => c.path.join(' '));
    for (const path of [
      'auth login',
      'auth status',
      'auth switch',
      'auth logout',
      'recordings list',
      'recordings get',
      'file',
      'webhooks create',
      'webhooks list',
      'webhooks delete',
      'webhooks listen',
      'webhooks sign',
      'webhooks trigger',
      'deliveries list',
      'deliveries replay',
      'verify-signature',
      'sync',
      'api',
      'completion',
      'sandbox',
      'help',
    ]) {
      expect(paths).toContain(path);
    }
    expect(find('recordings')?.aliases).toEqual(['recording']);
    expect(find('recordings', 'list')?.aliases).toEqual(['ls']);
  });

  it('takes enumerated values from the options and arguments themselves', () => {
    const list = find('recordings', 'list');
    const status = list?.options.find((o) => o.long === '--status');
    expect(status?.value).toEqual({ kind: 'choices', values: [...RECORDING_STATUSES] });
    expect(list?.options.find((o) => o.long === '--sync-state')?.value).toEqual({ kind: 'choices', values: [...SYNC_STATES] });
    expect(find('completion')?.arguments[0]?.value).toEqual({ kind: 'choices', values: ['bash', 'zsh', 'fish'] });
    const output = root.options.find((o) => o.long === '--output');
    expect(output).toMatchObject({ short: '-o', valueName: 'format', value: { kind: 'choices', values: ['table', 'json', 'ndjson'] } });
  });

  it('marks switches, file values and the repeatable --event', () => {
    const verify = find('verify-signature');
    expect(verify?.options.find((o) => o.long === '--payload')?.value).toEqual({ kind: 'file' });
    expect(verify?.options.find((o) => o.long === '--timestamp')?.value).toEqual({ kind: 'any' });
    expect(find('recordings', 'list')?.options.find((o) => o.long === '--all')?.value).toBeUndefined();
    expect(find('webhooks', 'create')?.options.find((o) => o.long === '--event')?.repeatable).toBe(true);
    expect(find('recordings', 'list')?.options.find((o) => o.long === '--status')?.repeatable).toBe(false);
  });

  it('offers command names and help topics to `rfs help`, sibling names to `rfs auth help`', () => {
    const help = find('help')?.arguments[0]?.value;
    expect(help?.kind === 'choices' && help.values).toEqual(
      expect.arrayContaining(['recordings', 'verify-signature', 'exit-codes', 'environment']),
    );
    expect(find('auth', 'help')?.arguments[0]?.value).toEqual({ kind: 'choices', values: ['login', 'status', 'switch', 'logout'] });
  });

  it('keeps the global options on the root only', () => {
    const list = find('recordings', 'list');
    if (!list) throw new Error('no recordings list');
    const own = ownOptions(list, root).flatMap(flagsOf);
    expect(own).toContain('--status');
    expect(own).not.toContain('--help');
    expect(root.options.flatMap(flagsOf)).toEqual(
      expect.arrayContaining(['-o', '--output', '--json', '--no-color', '-q', '--quiet', '-h', '--help']),
    );
  });
});

describe('buildCompletionTree', () => {
  it('reads options, arguments, variadic arguments and hidden commands', () => {
    const program = new Command('tool');
    program.addOption(new Option('--level <n>').choices(['1', '2']));
    const sub = program.command('send').alias('s').description('send things\nsecond line');
    sub.option('--from <file>', 'input').option('--dry-run', 'only show').option('--tag <t...>', 'tags');
    sub.addArgument(new Argument('<kind>').choices(['a', 'b'])).argument('[ids...]', 'ids');
    program.command('secret', { hidden: true });
    const tree = buildCompletionTree(program);
    expect(tree.subcommands.map((c) => c.name)).toEqual(['send', 'help']);
    const send = tree.subcommands[0];
    expect(send).toMatchObject({ name: 'send', aliases: ['s'], description: 'send things', path: ['send'] });
    expect(send?.options.map((o) => [o.long, o.value?.kind ?? 'switch', o.repeatable])).toEqual([
      ['--from', 'file', false],
      ['--dry-run', 'switch', false],
      ['--tag', 'any', true],
      ['--help', 'switch', false],
    ]);
    expect(send?.arguments).toEqual([
      { name: 'kind', description: '', required: true, variadic: false, value: { kind: 'choices', values: ['a', 'b'] } },
      { name: 'ids', description: 'ids', required: false, variadic: true, value: { kind: 'any' } },
    ]);
  });
});
