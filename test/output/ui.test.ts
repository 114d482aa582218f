import { describe, expect, test } from 'vitest';
import { colorEnabled } from '../../src/core/io.js';
import { createUi } from '../../src/output/ui-impl.js';
import { type BufferIOOptions, bufferIO } from '../helpers/io.js';

async function setup(io: BufferIOOptions, o: Partial<{ quiet: boolean; verbose: boolean }> = {}) {
  const b = bufferIO(io);
  const ui = await createUi(b.io, {
    quiet: o.quiet ?? false,
    verbose: o.verbose ?? false,
    stdoutColor: colorEnabled(b.io, undefined, 'stdout'),
    stderrColor: colorEnabled(b.io, undefined, 'stderr'),
  });
  return { ...b, ui };
}

describe('notices, warnings and verbose lines', () => {
  test('prints a notice on stderr, never on stdout', async () => {
    const t = await setup({});
    t.ui.notice('more results: --cursor abc');
    expect(t.stderr()).toBe('more results: --cursor abc\n');
    expect(t.stdout()).toBe('');
  });

  test('is silent about notices with --quiet but still warns', async () => {
    const t = await setup({}, { quiet: true });
    t.ui.notice('more results');
    t.ui.warn('the key cannot read recordings');
    expect(t.stderr()).toBe('warning: the key cannot read recordings\n');
  });

  test('prints verbose lines only when verbose', async () => {
    const quiet = await setup({});
    quiet.ui.verbose('GET /api/v1/recordings 200');
    expect(quiet.stderr()).toBe('');
    const loud = await setup({}, { verbose: true });
    loud.ui.verbose('GET /api/v1/recordings 200');
    expect(loud.stderr()).toBe('GET /api/v1/recordings 200\n');
    expect(loud.ui.verboseEnabled).toBe(true);
  });

  test('neutralises escape sequences in messages that carry server text', async () => {
    const t = await setup({});
    t.ui.notice('next: --cursor \x1b]0;pwned\x07');
    t.ui.warn('title \u009b31m\u202e');
    expect(t.stderr()).toBe('next: --cursor \\x1b]0;pwned\\x07\nwarning: title \\u009b31m\\u202e\n');
  });

  test('colours the warning prefix on a terminal, not off one, and never with NO_COLOR', async () => {
    const tty = await setup({ stderrIsTTY: true });
    tty.ui.warn('w');
    expect(tty.stderr()).toBe('\x1b[33mwarning:\x1b[39m w\n');
    expect(tty.ui.stderrColor).toBe(true);

    const pipe = await setup({ stderrIsTTY: false });
    pipe.ui.warn('w');
    expect(pipe.stderr()).toBe('warning: w\n');

    const noColor = await setup({ stderrIsTTY: true, stdoutIsTTY: true, env: { NO_COLOR: '1' } });
    noColor.ui.warn('w');
    expect(noColor.stderr()).toBe('warning: w\n');
    expect(noColor.ui.stdoutColor).toBe(false);
  });

  test('colours with FORCE_COLOR even off a terminal', async () => {
    const t = await setup({ stderrIsTTY: false, env: { FORCE_COLOR: '1' } });
    t.ui.warn('w');
    expect(t.stderr()).toBe('\x1b[33mwarning:\x1b[39m w\n');
    expect(t.ui.stdoutColor).toBe(true);
  });
});

describe('spinner', () => {
  test('animates on a terminal stderr and clears itself, printing the final text', async () => {
    const t = await setup({ stderrIsTTY: true });
    const spinner = await t.ui.spinner('rate limited: waiting 30.0s');
    spinner.update('rate limited: waiting 29.0s');
    spinner.stop('done waiting');
    const err = t.stderr();
    expect(err).toContain('rate limited: waiting 30.0s');
    expect(err).toContain('\x1b[?25l'); // cursor hidden while spinning …
    expect(err).toContain('\x1b[?25h'); // … and shown again
    expect(err.endsWith('done waiting\n')).toBe(true);
    expect(t.stdout()).toBe('');
  });

  test('does not animate off a terminal: only the final text, as a plain line', async () => {
    const t = await setup({ stderrIsTTY: false });
    const spinner = await t.ui.spinner('working');
    spinner.update('still working');
    spinner.stop('finished');
    expect(t.stderr()).toBe('finished\n');
  });

  test('never shows a spinner or its final text with --quiet, even on a terminal', async () => {
    const t = await setup({ stderrIsTTY: true }, { quiet: true });
    const spinner = await t.ui.spinner('working');
    spinner.update('still');
    spinner.stop('finished');
    expect(t.stderr()).toBe('');
  });

  test('sanitises spinner text and colours the frame only when colour is on', async () => {
    const plain = await setup({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    const s1 = await plain.ui.spinner('title \x1b[2J');
    s1.stop();
    expect(plain.stderr()).toContain('title \\x1b[2J');
    expect(plain.stderr()).not.toContain('\x1b[36m');
    expect(plain.stderr()).not.toContain('\x1b[2J');

    const coloured = await setup({ stderrIsTTY: true });
    const s2 = await coloured.ui.spinner('x');
    s2.stop();
    expect(coloured.stderr()).toContain('\x1b[36m');
  });
});

describe('hold (a full-screen view owns the terminal)', () => {
  test('keeps notices and warnings until released, then writes them in order; no spinner meanwhile', async () => {
    const t = await setup({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    const release = t.ui.hold?.();
    t.ui.notice('first');
    t.ui.warn('second');
    const spinner = await t.ui.spinner('waiting 5s before retrying');
    spinner.update('waiting 4s before retrying');
    spinner.stop();
    expect(t.stderr()).toBe('');
    release?.();
    expect(t.stderr()).toBe('first\nwarning: second\n');
    t.ui.notice('third');
    expect(t.stderr()).toBe('first\nwarning: second\nthird\n');
  });
});
