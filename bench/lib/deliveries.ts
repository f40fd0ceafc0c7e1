// What the webhook scenarios share: waiting on a condition with a deadline,
// and the sustained delivery rate of a receiver's arrival times.
import { setTimeout as delay } from 'node:timers/promises';
import { round } from './stats.js';

/** Arrival times (ms) at the bench receiver, and each delivery id's first arrival. */
export type Arrivals = { times: number[]; byId: Record<string, number> };

/** Polls `check` every 100 ms until it holds; fails after `deadlineMs` naming `what`. */
export async function waitFor(what: string, deadlineMs: number, check: () => Promise<boolean>): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`${what}: not done after ${deadlineMs / 1000} s`);
    await delay(100);
  }
}

/** The first 10 % of deliveries are the warm-up (connections opening, JIT): the rate is taken over the rest. */
export function sustainedRate(times: number[]): number | null {
  const from = Math.floor(times.length * 0.1);
  const window = (times.at(-1) as number) - (times[from] as number);
  return window > 0 ? round(((times.length - 1 - from) * 1000) / window, 1) : null;
}

/**
 * A pipeline's end-to-end sustained rate while it was offered work as fast as it would take it: what it
 * took in per second (`acceptedPerSecond`), or, if less, what it delivered per second until `until` (ms,
 * the receiver's clock), since work taken in but not yet delivered is a queue growing, not a rate.
 */
export function endToEndRate(acceptedPerSecond: number, times: number[], until: number): number | null {
  const delivered = sustainedRate(times.filter((t) => t <= until));
  if (delivered === null) return null;
  return round(Math.min(acceptedPerSecond, delivered), 1);
}

/** Polls `count` until it has not moved for `quietMs` (everything in flight delivered); fails after `deadlineMs`. */
export async function waitForQuiet(what: string, deadlineMs: number, count: () => Promise<number>, quietMs = 1_000) {
  let last = await count();
  let since = performance.now();
  await waitFor(what, deadlineMs, async () => {
    const now = await count();
    if (now !== last) {
      last = now;
      since = performance.now();
    }
    return performance.now() - since >= quietMs;
  });
}
