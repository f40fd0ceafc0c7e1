import type { BenchMode } from './cli-options.js';

/** Run lengths per mode. Quick mode keeps the whole suite under 2 minutes on 2 cores; its figures are indicative only. */
export interface Timing {
  warmupMs: number;
  durationMs: number;
  /** For in-process microbenchmarks (verifiers, signing), per library and size. */
  microWarmupMs: number;
  microDurationMs: number;
  /** A scenario that runs longer than this is stopped and reported as failed. */
  scenarioBudgetMs: number;
}

export function timingFor(mode: BenchMode): Timing {
  return mode === 'quick'
    ? { warmupMs: 200, durationMs: 1_000, microWarmupMs: 150, microDurationMs: 500, scenarioBudgetMs: 120_000 }
    : { warmupMs: 3_000, durationMs: 15_000, microWarmupMs: 1_000, microDurationMs: 5_000, scenarioBudgetMs: 30 * 60_000 };
}
