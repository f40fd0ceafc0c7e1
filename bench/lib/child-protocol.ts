// The child side of ChildRegistry: announce readiness, answer calls, stop cleanly.

export type Operation = (args: unknown) => Promise<unknown> | unknown;

export function childOptions<T>(): T {
  return JSON.parse(process.env.FEIRA_BENCH_CHILD_OPTIONS ?? '{}') as T;
}

/**
 * Announces `info` to the parent and serves `operations`. `onStop` runs on
 * SIGTERM or when the parent goes away, so a crashed run leaves no process behind.
 */
export function serveChild(info: unknown, operations: Record<string, Operation>, onStop?: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(0), 3_000);
    timer.unref();
    try {
      await onStop?.();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.on('message', async (raw) => {
    const message = raw as { type: string; id: number; op: string; args: unknown };
    if (message.type !== 'call') return;
    const operation = operations[message.op];
    try {
      if (!operation) throw new Error(`unknown operation ${message.op}`);
      const value = await operation(message.args);
      process.send?.({ type: 'result', id: message.id, ok: true, value: value ?? null });
    } catch (error) {
      process.send?.({
        type: 'result',
        id: message.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
  process.send?.({ type: 'ready', info });
}
