// Several threads open the same new SQLite files at the same instant, one file
// per round, and print what each open left behind as JSON: the race two
// `feira start` on an empty data folder run. Threads, not processes, so a
// barrier can line every round up to the microsecond; each thread has its own
// better-sqlite3 connection, as a second process would.
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../../src/storage/database.js';

type Job = { dir: string; rounds: number; threads: number; barrier: SharedArrayBuffer };
type Outcome = { journalModes: string[]; failures: string[] };

if (isMainThread) {
  const dir = process.env.FEIRA_RACE_DIR;
  if (!dir) throw new Error('FEIRA_RACE_DIR is required');
  const rounds = Number(process.env.FEIRA_RACE_ROUNDS ?? 200);
  const threads = Number(process.env.FEIRA_RACE_THREADS ?? 3);
  const job: Job = { dir, rounds, threads, barrier: new SharedArrayBuffer(4 * rounds) };
  const outcomes = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise<Outcome>((resolve, reject) => {
          // The thread runs this TypeScript file too: a small ES module registers tsx, then imports it.
          const worker = new Worker(
            new URL(
              `data:text/javascript,import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(import.meta.url)});`,
            ),
            { workerData: job },
          );
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const journalModes = [...new Set(outcomes.flatMap((o) => o.journalModes))];
  const failures = outcomes.flatMap((o) => o.failures);
  process.stdout.write(`${JSON.stringify({ opens: rounds * threads, journalModes, failures })}\n`);
} else {
  const { dir, rounds, threads, barrier } = workerData as Job;
  const arrived = new Int32Array(barrier);
  const outcome: Outcome = { journalModes: [], failures: [] };
  for (let round = 0; round < rounds; round++) {
    // Spin until every thread has reached this round (a wait would let the first ones out late), for 10 s
    // at most: a thread that died would hold the others here for ever.
    Atomics.add(arrived, round, 1);
    const deadline = Date.now() + 10_000;
    while (Atomics.load(arrived, round) < threads) {
      if (Date.now() > deadline) throw new Error(`round ${round}: the other threads never arrived`);
    }
    try {
      const sqlite = openSqliteConnection(join(dir, `race-${round}.db`));
      outcome.journalModes.push(String(sqlite.pragma('journal_mode', { simple: true })));
      sqlite.close();
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      outcome.failures.push(`round ${round}: ${code ?? ''} ${message ?? String(error)}`);
    }
  }
  outcome.journalModes = [...new Set(outcome.journalModes)];
  parentPort?.postMessage(outcome);
}
