// One spinner at a time: a retry's countdown that starts while a list's
// progress line (or the previous countdown) still spins must not make a second ora on the same
// terminal — ora then prints "[ora] Multiple concurrent spinners detected" with console.warn,
// glued to the spinner's line. Every ui.spinner() is a handle on the Ui's one spinner.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createUi } from '../../src/output/ui-impl.js';
import { bufferIO } from '../helpers/io.js';

afterEach(() => vi.restoreAllMocks());

const tty = () => bufferIO({ stderrIsTTY: true, stdoutIsTTY: true });
const options = { quiet: false, verbose: false, stdoutColor: false, stderrColor: false };

describe('the Ui spinner', () => {
  it('shows the newest of two open spinners, then the older again, with no ora warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const t = tty();
    const ui = await createUi(t.io, options);
    const list = await ui.spinner('fetching recordings…');
    const retry = await ui.spinner('HTTP 503: retrying in 3s (attempt 2/6)');
    expect(t.stderr()).toContain('HTTP 503: retrying in 3s');
    retry.stop();
    list.update('100 so far (1 page)…');
    const before = t.stderr().length;
    await new Promise((resolve) => setTimeout(resolve, 250)); // two frames of ora's 80 ms
    expect(t.stderr().slice(before)).toContain('100 so far (1 page)…');
    list.stop();
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('a terminal that reports 0 columns', () => {
  // A serial console or a pty before its first resize: ora would erase an endless number of lines.
  it('gets no animation, only the final line', async () => {
    const t = tty();
    (t.io.stderr as { columns?: number }).columns = 0;
    const ui = await createUi(t.io, options);
    const spinner = await ui.spinner('fetching recordings…');
    spinner.update('100 so far (1 page)…');
    spinner.stop('done: 100 recordings');
    expect(t.stderr()).toBe('done: 100 recordings\n');
    expect(t.stderr()).not.toContain('\u001b[');
  });
});
