// The command tree is declared whole only when needed: for a command that argv names for sure,
// the other top-level commands are names and descriptions (src/cli/program.ts, commandToRun).
// Whatever the tree is built for, what commander says must not change.
import { describe, expect, it } from 'vitest';
import { buildProgram, commandToRun, type Dispatch } from '../../src/cli/program.js';

const dispatch: Dispatch = async () => undefined;

/** What commander prints and throws for argv, with the program built for `only`. */
async function parse(argv: string[], only: string | undefined): Promise<{ out: string; err: string; code: string | undefined }> {
  let out = '';
  let err = '';
  const program = buildProgram(dispatch, { writeOut: (t) => void (out += t), writeErr: (t) => void (err += t) }, only);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { out, err, code: undefined };
  } catch (error) {
    return { out, err, code: (error as { code?: string }).code };
  }
}

describe('commandToRun', () => {
  it.each([
    [['recordings', 'list'], 'recordings'],
    [['recording', 'ls', '--all'], 'recordings'],
    [['-o', 'json', 'recordings', 'list'], 'recordings'],
    [['--output=ndjson', '--profile', 'ci', 'file', 'rec_1'], 'file'],
    [['-q', '-v', '--json', '--no-color', '-y', 'webhooks', 'delete', 'wh_1'], 'webhooks'],
    [['--timeout', '5', '--max-retries', '0', '--rate', '0', '--base-url', 'http://127.0.0.1:1', 'delivery', 'ls'], 'deliveries'],
    [['verify-signature', '--payload', '-'], 'verify-signature'],
    [['sandbox', '--port', '0'], 'sandbox'],
  ])('%j runs %s', (argv, name) => {
    expect(commandToRun(argv)).toBe(name);
  });

  it.each([
    [[]],
    [['--help']],
    [['help', 'recordings']],
    [['completion', 'bash']],
    [['recordngs', 'list']],
    [['--bogus', 'recordings', 'list']],
    [['-qo', 'json', 'recordings', 'list']],
    [['-ojson', 'recordings']],
    [['--', 'recordings']],
  ])('%j builds the whole tree', (argv) => {
    expect(commandToRun(argv)).toBeUndefined();
  });
});

describe('a tree built for one command', () => {
  it.each([
    ['recordings', '--help'],
    ['recordings', 'list', '--help'],
    ['recordings', 'get', '--help'],
    ['file', '--help'],
    ['webhooks', 'listen', '--help'],
    ['deliveries', 'replay', '--help'],
    ['auth', '--help'],
    ['sync', '--help'],
    ['sandbox', '--help'],
    ['verify-signature', '--help'],
    ['recordings', 'lst'],
    ['recordings', 'list', '--limt', '5'],
    ['file', 'a', 'b'],
    ['-o', 'json', 'webhooks'],
  ])('answers %j as the whole tree does', async (...argv) => {
    const whole = await parse(argv, undefined);
    const lean = await parse(argv, commandToRun(argv));
    expect(commandToRun(argv)).toBeDefined();
    expect(lean).toEqual(whole);
    expect(`${whole.out}${whole.err}`).not.toBe('');
  });

  it('runs the command it was built for', async () => {
    const ran: string[] = [];
    const program = buildProgram(async (name, _load, inv) => void ran.push(`${name} ${inv.args.join(' ')} ${String(inv.opts.limit)}`), undefined, 'recordings');
    await program.parseAsync(['recordings', 'list', '--limit', '5'], { from: 'user' });
    expect(ran).toEqual(['recordings list  5']);
  });
});
