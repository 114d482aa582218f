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
  const line = (text: string): void => {
    io.stderr.write(`${clean(text)}\n`);
  };

  return {
    stdoutColor: o.stdoutColor,
    stderrColor: o.stderrColor,
    quiet: o.quiet,
    verboseEnabled: o.verbose,
    redact,
    notice(message) {
      if (!o.quiet) line(message);
    },
    warn(message) {
      io.stderr.write(`${err.yellow('warning:')} ${clean(message)}\n`);
    },
    verbose(text) {
      if (o.verbose) io.stderr.write(`${err.dim(clean(text))}\n`);
    },
    async spinner(text) {
      if (o.quiet) return NO_SPINNER;
      if (!io.stderrIsTTY) {
        // No animation off a terminal; the final text is still worth a line.
        return {
          update: () => undefined,
          stop: (finalText) => {
            if (finalText !== undefined) line(finalText);
          },
        };
      }
      // ora and its dependencies load only when a spinner is really shown.
      const { default: ora, spinners } = await import('ora');
      const frames = spinners.dots.frames.map((f) => err.cyan(f));
      const spin = ora({
        text: clean(text, false),
        stream: io.stderr,
        // Decided above from io, not from ora's own look at the stream and CI variables.
        isEnabled: true,
        // ora would otherwise take over process.stdin, which `--from -` and prompts read.
        discardStdin: false,
        spinner: { interval: spinners.dots.interval, frames },
        color: false,
      }).start();
      let stopped = false;
      return {
        update(next) {
          if (!stopped) spin.text = clean(next, false);
        },
        stop(finalText) {
          if (stopped) return;
          stopped = true;
          spin.stop();
          if (finalText !== undefined) line(finalText);
        },
      };
    },
  };
}
