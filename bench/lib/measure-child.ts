import type { ChildRegistry } from './child-process.js';

/** Starts a microbenchmark worker (which answers `measure` with operations/s), asks once, stops it. */
export async function measureInChild(children: ChildRegistry, role: string, script: URL, options: unknown): Promise<number> {
  const worker = await children.start(role, script, { options });
  try {
    return await worker.call<number>('measure');
  } finally {
    await worker.stop();
  }
}
