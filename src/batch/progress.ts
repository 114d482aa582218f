// The spinner of a batch. A result row written on stdout while the spinner sits on the same
// terminal line would be mixed into it, so the spinner is taken off the screen for each row
// and shown again after it, with the last text it was given.
import type { Spinner, Ui } from '../core/ui.js';

export class Progress {
  private spinner: Spinner | undefined;
  private stopped = false;

  private constructor(
    private readonly ui: Ui,
    private text: string,
  ) {}

  static async start(ui: Ui, text: string): Promise<Progress> {
    const progress = new Progress(ui, text);
    progress.spinner = await ui.spinner(text);
    return progress;
  }

  update(text: string): void {
    this.text = text;
    this.spinner?.update(text);
  }

  /** Runs `write` with the spinner off the screen. */
  async clearedFor<R>(write: () => Promise<R>): Promise<R> {
    this.spinner?.stop();
    this.spinner = undefined;
    try {
      return await write();
    } finally {
      if (!this.stopped) {
        const spinner = await this.ui.spinner(this.text);
        // stop() may have come while the new spinner was being made: it must not outlive the batch.
        if (this.stopped) spinner.stop();
        else this.spinner = spinner;
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
