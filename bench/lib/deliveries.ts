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
