// What stopped a run from outside, in the words every message uses (cli.md, Exit codes: 130,
// "the message names which"). The process entry point aborts the run's signal with an
// Interruption naming the signal it got; everything else reads it back from the signal. An
// Interruption is an AbortError (a DOMException), so code that waits on the signal sees the
// kind of reason it always saw. Part of the base layer: it imports nothing of rfs.

/** The signals that stop a run: Ctrl-C, a service manager or `kill`, a closed terminal or SSH session. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export class Interruption extends DOMException {
  constructor(readonly stopSignal: StopSignal) {
    super(interruptionText(stopSignal), 'AbortError');
  }
}

/** The signal that aborted `signal`, when an Interruption did. */
export function stopSignalOf(signal: AbortSignal | undefined): StopSignal | undefined {
  const reason: unknown = signal?.reason;
  return reason instanceof Interruption ? reason.stopSignal : undefined;
}

/** "interrupted (Ctrl-C)", "terminated (SIGTERM)", "hung up (SIGHUP)"; a run stopped by a test or a prompt reads as Ctrl-C. */
export function interruptionText(stopSignal: StopSignal | undefined): string {
  switch (stopSignal) {
    case 'SIGTERM':
      return 'terminated (SIGTERM)';
    case 'SIGHUP':
      return 'hung up (SIGHUP)';
    default:
      return 'interrupted (Ctrl-C)';
  }
}
