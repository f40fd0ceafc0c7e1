/** Runs `fn` for `warmupMs` (not counted), then for `durationMs`; returns operations per second. */
export function opsPerSecond(fn: () => unknown, warmupMs: number, durationMs: number): number {
  const loopFor = (ms: number) => {
    const end = performance.now() + ms;
    let n = 0;
    let t = performance.now();
    while (t < end) {
      for (let i = 0; i < 32; i++) fn();
      n += 32;
      t = performance.now();
    }
    return n;
  };
  loopFor(warmupMs);
  const t0 = performance.now();
  const n = loopFor(durationMs);
  return (n * 1000) / (performance.now() - t0);
}

/**
 * The same for asynchronous operations, `concurrency` at a time (as a server
 * handling several requests would: WebCrypto signing runs on the libuv pool).
 */
export async function asyncOpsPerSecond(
  fn: () => Promise<unknown>,
  warmupMs: number,
  durationMs: number,
  concurrency = 8,
): Promise<number> {
  const loopFor = async (ms: number) => {
    const end = performance.now() + ms;
    let n = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          await fn();
          n += 1;
        }
      }),
    );
    return n;
  };
  await loopFor(warmupMs);
  const t0 = performance.now();
  const n = await loopFor(durationMs);
  return (n * 1000) / (performance.now() - t0);
}

/** One measured slice: how many calls ran, and the process CPU time they took (user + system). */
export interface Slice {
  ops: number;
  cpuMicros: number;
}

/**
 * Runs `fn` for about `durationMs` of wall time and returns the calls made and
 * the CPU time spent. Operations per CPU-second is what a busy machine moves
 * least: another process taking the core pauses the wall clock's count but not
 * this one's (webhook-verify interleaves such slices of every library).
 */
export function sliceOf(fn: () => unknown, durationMs: number): Slice {
  const end = performance.now() + durationMs;
  const cpu0 = process.cpuUsage();
  let ops = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 32; i++) fn();
    ops += 32;
  }
  const cpu = process.cpuUsage(cpu0);
  return { ops, cpuMicros: cpu.user + cpu.system };
}
