// The stderr side of rfs, bound to one IO: notices, warnings, verbose lines and spinners.
// Colour comes from what the caller resolved (flags, NO_COLOR, FORCE_COLOR, terminals), through
// a chalk instance with an explicit level, never the global one that detects colour by itself.
// chalk is loaded only when stderr is coloured: off a terminal (scripts, pipelines) it would cost
// about 2 ms of start-up for nothing.
import type { IO } from '../core/io.js';
import { redactSecrets } from '../core/redact.js';
import { sanitize } from '../core/sanitize.js';
import type { Spinner, Ui } from '../core/ui.js';

export interface UiOptions {
  quiet: boolean;
  verbose: boolean;
  stdoutColor: boolean;
  stderrColor: boolean;
  /** Removes secrets from every text before it is shown; default: the patterns alone. */
  redact?: (text: string) => string;
}

const NO_SPINNER: Spinner = { update: () => undefined, stop: () => undefined };

/** The three styles used here; a chalk instance is one. */
interface Paint {
  yellow(text: string): string;
  dim(text: string): string;
  cyan(text: string): string;
}
const plain = (text: string): string => text;
const NO_PAINT: Paint = { yellow: plain, dim: plain, cyan: plain };

export async function createUi(io: IO, o: UiOptions): Promise<Ui> {
  const err: Paint = o.stderrColor ? new (await import('chalk')).Chalk({ level: 1 }) : NO_PAINT;
  // Messages may carry server text (a cursor, a title, an error that quotes the server): redacted
  // and sanitised here once for every caller.
  const redact = o.redact ?? ((text: string): string => redactSecrets(text));
  const clean = (text: string, multiline = true): string => sanitize(redact(text), { multiline });
  // On a terminal a long notice or warning wraps at words, as doctor's advice does, never
  // mid-word by the terminal. The layout module (string-width) loads only
  // for a terminal's stderr; elsewhere lines stay whole, for logs and grep.
  const layOut = io.stderrIsTTY ? await stderrWrap(io) : (text: string, lead = ''): string => lead + text;
  // While a full-screen view holds the terminal (Ui.hold), stderr's lines wait here.
  let held: string[] | undefined;
  const write = (text: string): void => {
    if (held === undefined) io.stderr.write(text);
    else held.push(text);
  };
  const line = (text: string): void => {
    write(`${layOut(clean(text))}\n`);
  };

  const spinners = new SpinnerStack(io, err, line, (text) => clean(text, false));
  return {
    stdoutColor: o.stdoutColor,
    stderrColor: o.stderrColor,
    quiet: o.quiet,
    verboseEnabled: o.verbose,
    redact,
    notice(message) {
      if (!o.quiet) line(message);
    },
    say(message, shown = {}) {
      const once = shown.shownOnce === undefined ? '' : ` ${sanitize(shown.shownOnce, { multiline: false })}`;
      write(`${layOut(`${clean(message)}${once}`)}\n`);
    },
    warn(message) {
      const text = layOut(clean(message), 'warning: ');
      write(`${err.yellow('warning:')}${text.slice('warning:'.length)}\n`);
    },
    verbose(text) {
      if (o.verbose) write(`${err.dim(clean(text))}\n`);
    },
    hold() {
      held ??= [];
      return () => {
        const lines = held ?? [];
        held = undefined;
        for (const text of lines) io.stderr.write(text);
      };
    },
    async spinner(text) {
      if (o.quiet) return NO_SPINNER;
      // A terminal that reports 0 columns (a serial console, a pty before its first resize) gets
      // no animation either: ora would count a line as endless and erase lines forever.
      if (!io.stderrIsTTY || held !== undefined || (io.stderr as { columns?: number }).columns === 0) {
        // No animation off a terminal; the final text is still worth a line.
        return {
          update: () => undefined,
          stop: (finalText) => {
            if (finalText !== undefined) line(finalText);
          },
        };
      }
      return spinners.open(clean(text, false));
    },
  };
}

/**
 * Text laid out for stderr's terminal: each line wider than the terminal wrapped at words
 * (`lead`, e.g. `warning: `, starts the first line; the following ones start at column one).
 * The result starts with `lead`.
 */
async function stderrWrap(io: IO): Promise<(text: string, lead?: string) => string> {
  const { displayWidth } = await import('./table.js');
  const { words, wrapWords } = await import('./wrap.js');
  return (text, lead = '') => {
    const columns = (io.stderr as { columns?: number }).columns || io.columns;
    return text
      .split('\n')
      .map((l, i) => {
        const first = i === 0 ? lead : '';
        return displayWidth(first + l) <= columns ? first + l : wrapWords(words(l), columns, first, '', { whole: true }).join('\n');
      })
      .join('\n');
  };
}

/** What the Ui needs of ora's spinner. */
interface Animation {
  text: string;
  readonly isSpinning: boolean;
  start(): unknown;
  render(): unknown;
  stop(): unknown;
}

/**
 * The one spinner of a Ui (ora warned "Multiple concurrent spinners detected" when a
 * retry's countdown started under a list's progress line). Every `ui.spinner()` is a handle on
 * it: the newest open handle's text is shown, and when it stops the one below shows again; the
 * animation runs while any handle is open. ora itself clears its line around other writes to
 * the terminal while it runs, so a notice is never glued to the spinner's line.
 */
class SpinnerStack {
  private readonly open_: { text: string }[] = [];
  private animation: Promise<Animation> | undefined;

  constructor(
    private readonly io: IO,
    private readonly paint: Paint,
    private readonly line: (text: string) => void,
    private readonly clean: (text: string) => string,
  ) {}

  async open(text: string): Promise<Spinner> {
    const entry = { text };
    this.open_.push(entry);
    const animation = await this.load();
    this.show(animation);
    let stopped = false;
    return {
      update: (next) => {
        if (stopped) return;
        entry.text = this.clean(next);
        this.show(animation);
      },
      stop: (finalText) => {
        if (stopped) return;
        stopped = true;
        this.open_.splice(this.open_.indexOf(entry), 1);
        if (this.open_.length === 0) animation.stop();
        if (finalText !== undefined) this.line(finalText);
        this.show(animation);
      },
    };
  }

  private shown: { text: string } | undefined;

  private show(animation: Animation): void {
    const top = this.open_[this.open_.length - 1];
    if (top === undefined) return;
    animation.text = top.text;
    // Another spinner's text is shown at once; an update of the same one (a count that moves
    // with every item of a 100,000-item list) waits for ora's next frame.
    if (!animation.isSpinning) animation.start();
    else if (this.shown !== top) animation.render();
    this.shown = top;
  }

  private load(): Promise<Animation> {
    // ora and its dependencies load only when a spinner is really shown.
    this.animation ??= import('ora').then(({ default: ora, spinners }) =>
      ora({
        stream: this.io.stderr,
        // Decided by the Ui from io, not from ora's own look at the stream and CI variables.
        isEnabled: true,
        // ora would otherwise take over process.stdin, which `--from -` and prompts read.
        discardStdin: false,
        spinner: { interval: spinners.dots.interval, frames: spinners.dots.frames.map((f) => this.paint.cyan(f)) },
        color: false,
      }),
    );
    return this.animation;
  }
}
