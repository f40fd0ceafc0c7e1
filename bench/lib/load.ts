import type { ChildRegistry } from './child-process.js';
import type { LoadPlan, LoadResult } from './load-plan.js';

const WORKER = new URL('./load-worker.ts', import.meta.url);

/** Runs one load plan from a fresh load-generator process and stops it. */
export async function runLoad(children: ChildRegistry, plan: LoadPlan): Promise<LoadResult> {
  const worker = await children.start('load generator', WORKER);
  try {
    return await worker.call<LoadResult>('run', plan, plan.warmupMs + plan.durationMs + 60_000);
  } finally {
    await worker.stop();
  }
}
