// The process entry point: wires the real streams and signals to runCli, then ends the process
// with its exit code once the output is flushed.
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts += 1;
    // The first Ctrl-C lets the command finish its report; a second one means "now".
    if (interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that goes away (`rfs … | head -1`) is not an error worth a stack trace: the
  // writers see the failed write and stop; this keeps the event from crashing the process.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const [{ runCli }, { processIO }] = await Promise.all([import('./cli/run.js'), import('./core/io.js')]);
  const code = await runCli(argv, processIO(), { signal: controller.signal, processExits: true });
  // Everything written is handed to the OS before the end (pipes are asynchronous on macOS).
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** Resolves once what was written before it has been handed on, or the stream has failed. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}

main().catch(async (error: unknown) => {
  // The last writer to stderr redacts too; loaded only on this path, never at start-up.
  const { redactSecrets } = await import('./core/redact.js');
  process.stderr.write(`error: unexpected failure: ${redactSecrets(error instanceof Error ? error.message : String(error))}\n`);
  process.exitCode = 1;
});
