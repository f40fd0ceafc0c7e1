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
 * Resolves with the first signal; `again` runs for each later one while the
 * command shuts down (by default it exits at once with code 1: Ctrl-C twice
 * means "stop waiting").
 */
export function stopSignal(again: (signal: NodeJS.Signals) => void = () => process.exit(1)): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) return again(signal);
      received = true;
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
