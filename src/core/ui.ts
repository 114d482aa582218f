// Everything rfs says on stderr that is not a result: notices, warnings, verbose request lines,
// spinners. Bound to one IO, so tests see exactly what a user would. Whatever it is given is
// redacted here, once for every caller: no caller has to remember to.
// (Interface only here; the implementation lives in src/output/ui-impl.ts.)

export interface Spinner {
  update(text: string): void;
  /** Removes the spinner; the text given is printed as a plain line when present. */
  stop(finalText?: string): void;
}

export interface Ui {
  /** Colour on stdout / stderr as resolved from the flags, NO_COLOR, FORCE_COLOR and terminals. */
  readonly stdoutColor: boolean;
  readonly stderrColor: boolean;
  readonly quiet: boolean;
  readonly verboseEnabled: boolean;
  /** A notice on stderr, e.g. "more results: --cursor X"; silent with --quiet. */
  notice(message: string): void;
  /**
   * A line on stderr that --quiet keeps: a run's summary, where a receiver listens. Laid out as
   * notices are (wrapped at words on a terminal). `shownOnce` (a secret shown the one time it
   * exists) ends the line escaped but not redacted, kept whole.
   */
  say(message: string, o?: { shownOnce?: string }): void;
  /** `warning: …` on stderr; printed even with --quiet. */
  warn(message: string): void;
  /** One line on stderr with -v / RFS_DEBUG=1. */
  verbose(line: string): void;
  /**
   * For a full-screen view (`deliveries watch`), which owns the terminal: until the function it
   * returns is called, no spinner is drawn and stderr's lines wait, to be written then.
   */
  hold?(): () => void;
  /** A spinner on a terminal stderr without --quiet; a no-op object otherwise. */
  spinner(text: string): Promise<Spinner>;
  /**
   * Secrets out of any text, with the exact key of this run when one is known. Every method
   * above applies it to what it is given; other writers (result lines, the error report) use it.
   */
  redact(text: string): string;
}
