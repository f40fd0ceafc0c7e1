import type { ChildRegistry } from './child-process.js';
import type { LoadPlan, LoadResult } from './load-plan.js';

const WORKER = new URL('./load-worker.ts', import.meta.url);

export interface LoadGenerator {
  /** The generator's process, e.g. to lower its priority. */
  pid: number;
  run(plan: LoadPlan): Promise<LoadResult>;
  stop(): Promise<void>;
}

/** A load-generator process that runs several plans one after another (one process start per scenario, not per plan). */
export async function startLoadGenerator(children: ChildRegistry): Promise<LoadGenerator> {
  // A shared host at a load of 40 has taken more than the default 30 s to start it.
  const worker = await children.start('load generator', WORKER, { readyTimeoutMs: 180_000 });
  return {
    pid: worker.pid,
    run: (plan) => worker.call<LoadResult>('run', plan, plan.warmupMs + plan.durationMs + 60_000),
    stop: () => worker.stop(),
  };
}

/** Runs one load plan from a fresh load-generator process and stops it. */
export async function runLoad(children: ChildRegistry, plan: LoadPlan): Promise<LoadResult> {
  const generator = await startLoadGenerator(children);
  try {
    return await generator.run(plan);
  } finally {
    await generator.stop();
  }
}
