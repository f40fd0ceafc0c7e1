import type { ChildRegistry } from './child-process.js';
import type { BenchMode } from './cli-options.js';
import { finite } from './stats.js';

/** One measured figure, with the baseline measured in the same run and the target from BENCHMARKS.md. */
export interface Figure {
  /** What is measured, e.g. `cursor page 1,000 p50`. */
  name: string;
  value: number | null;
  unit: string;
  baseline: { name: string; value: number | null; unit: string } | null;
  /** value ÷ baseline.value (null without a baseline). */
  ratio: number | null;
  /** The target, in words, and whether this run met it (null when there is no target). */
  target: { text: string; met: boolean | null } | null;
}

/**
 * `timed out`: stopped at its time budget (a slow or busy machine), which is a
 * speed, not a defect, so it does not fail the run; `failed`: it crashed.
 */
export type ScenarioStatus = 'ok' | 'not available' | 'timed out' | 'failed';

export interface ScenarioResult {
  id: string;
  title: string;
  status: ScenarioStatus;
  /** Why a scenario did not run or failed. */
  reason: string | null;
  /** Caveats of this run (e.g. quick mode seeds fewer rows). */
  notes: string[];
  durationMs: number;
  /** Peak RSS (VmHWM) per process role, e.g. `{ platform: 123456789 }`. */
  peakRssBytes: Record<string, number | null>;
  figures: Figure[];
}

export interface ScenarioContext {
  mode: BenchMode;
  children: ChildRegistry;
  /** Fresh per-scenario scratch directory (removed afterwards). */
  scratchDir: string;
  /** PostgreSQL server for the PostgreSQL variants (a fresh schema per run, dropped afterwards). */
  postgresUrl: string | null;
  notes: string[];
  peakRssBytes: Record<string, number | null>;
  log(message: string): void;
}

export interface Scenario {
  id: string;
  title: string;
  /** Returns why the scenario cannot run yet (a feature not landed), or null when it can. */
  unavailable(): Promise<string | null>;
  run(ctx: ScenarioContext): Promise<Figure[]>;
  /** A time budget of its own where the mode's default is too short (ms, quick mode). */
  quickBudgetMs?: number;
  /** The same for full mode (ms). */
  fullBudgetMs?: number;
}

/**
 * One row of the results. A missing value (no samples) is null, never NaN or a
 * number derived from it, and then no target is reported as met.
 */
export function figure(
  name: string,
  rawValue: number | null | undefined,
  unit: string,
  options: { baseline?: Figure['baseline']; target?: { text: string; met: boolean | null } } = {},
): Figure {
  const value = finite(rawValue);
  const baseline = options.baseline ? { ...options.baseline, value: finite(options.baseline.value) } : null;
  const ratio =
    baseline && value !== null && baseline.value !== null && baseline.value !== 0
      ? Math.round((value / baseline.value) * 1000) / 1000
      : null;
  const target = options.target ? { text: options.target.text, met: value === null ? null : options.target.met } : null;
  return { name, value, unit, baseline, ratio, target };
}
