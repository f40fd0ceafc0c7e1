/**
 * SIGINT and SIGTERM, listened for from the moment of the call.
 *
 * A long-running command (`feira start`, `listen`, `dispatch`) calls this
 * before it prints that it is ready. A script (or a test) that sends SIGTERM
 * as soon as it reads that line then always finds a handler. Until a
 * handler exists, Node leaves the signal to its default action: the process
 * ends at once, with no exit code and no clean-up (for `feira listen`, its
 * subscriptions would stay active).
 *
 * Resolves with the first signal. A second one, while the command shuts
 * down, means "stop waiting" (Ctrl-C twice): `<command>: <signal> again,
 * exiting without waiting` on stderr, with what that leaves undone if
 * `leftUndone` says, and exit code 1 at once.
 */
export function stopSignal(command: string, leftUndone?: string): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        process.stderr.write(`${command}: ${signal} again, exiting without waiting${leftUndone ? ` (${leftUndone})` : ''}\n`);
        process.exit(1);
      }
      received = true;
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
