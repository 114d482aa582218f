// cli.md, Global options: help goes to stdout and exits 0; `rfs help
// <command> [<sub>]` shows that command; an unknown topic is exit 2 with the known ones; the
// global options are listed once; no help sends users to a file they do not have.
import { existsSync } from 'node:fs';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../../src/cli/run.js';
import { bufferIO } from '../helpers/io.js';

async function rfs(argv: string[]) {
  const t = bufferIO({ env: { COLUMNS: '80' } });
  const code = await runCli(argv, t.io);
  return { code, stdout: t.stdout(), stderr: t.stderr() };
}

function allCommands(command: CommandUnknownOpts, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((c) => allCommands(c, [...path, c.name()]))];
}

describe('help on stdout, exit 0', () => {
  it.each([[[]], [['recordings']], [['auth']], [['--help']], [['recordings', '--help']], [['help']]])('rfs %j', async (argv) => {
    const r = await rfs(argv);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: rfs/);
    expect(r.stderr).toBe('');
  });
});

describe('rfs help <command> [<sub>]', () => {
  it('rfs help recordings list shows the help of recordings list', async () => {
    const r = await rfs(['help', 'recordings', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: rfs recordings list\|ls \[options\]/);
    expect(r.stdout).toBe((await rfs(['recordings', 'list', '--help'])).stdout);
  });

  it('follows aliases: rfs help recording ls', async () => {
    expect((await rfs(['help', 'recording', 'ls'])).stdout).toMatch(/^Usage: rfs recordings list/);
  });

  it('rfs help nope is exit 2 with the known topics, nothing on stdout', async () => {
    const r = await rfs(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no help for "nope": known topics are auth, recordings, .*sandbox, exit-codes, environment/);
  });

  it('rfs help recordings nope is exit 2 with the verbs of recordings', async () => {
    const r = await rfs(['help', 'recordings', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no help for "nope" under "rfs recordings": known topics are list, get/);
  });
});

describe('global options once', () => {
  it('rfs --help lists every global option', async () => {
    const r = await rfs(['--help']);
    for (const flag of [
      '--profile',
      '--base-url',
      '--output',
      '--json',
      '--no-color',
      '--quiet',
      '--verbose',
      '--timeout',
      '--max-retries',
      '--rate',
      '--yes',
    ])
      expect(r.stdout).toContain(flag);
  });

  it('a subcommand does not repeat them, and ends with one line pointing to rfs --help', async () => {
    const r = await rfs(['recordings', 'list', '--help']);
    expect(r.stdout).not.toMatch(/--max-retries|--base-url|--timeout/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Global options (-o, --json, -p, -q, -v, -y, …): see rfs --help');
    expect(r.stdout).not.toMatch(/\n\n\n/);
  });

  it('sandbox --help lists no --profile or --rate, which it ignores', async () => {
    const r = await rfs(['sandbox', '--help']);
    expect(r.stdout).not.toMatch(/--profile|--rate |--rate\n|Global options/);
  });
});

describe('every document a help names is one the user has', () => {
  // The spec's sandbox.md is not shipped; docs/sandbox.md is (the sandbox's guide).
  it('no command help names the spec, and each docs/*.md it names exists', async () => {
    const program = buildProgram(async () => undefined);
    for (const path of allCommands(program)) {
      const r = await rfs([...path, '--help']);
      expect(r.stdout, `rfs ${path.join(' ')} --help`).not.toMatch(/spec\/|(?<!docs\/)sandbox\.md|README: The sandbox/);
      for (const [doc] of r.stdout.matchAll(/docs\/[a-z-]+\.md/g)) {
        expect(existsSync(new URL(`../../${doc}`, import.meta.url)), `rfs ${path.join(' ')} --help names ${doc}`).toBe(true);
      }
    }
  });
});
