// `npm run bench` / `feira bench`: runs the scenarios of BENCHMARKS.md as separate
// processes on 127.0.0.1, writes bench/results/latest.json and prints a
// Markdown table. See BENCHMARKS.md for the method and each scenario.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildRegistry } from './lib/child-process.js';
import { parseBenchOptions } from './lib/cli-options.js';
import { compareResults, renderComparison } from './lib/compare.js';
import { describeMachine } from './lib/machine.js';
import { type BenchResults, RESULTS_SCHEMA, renderMarkdown, validateResults } from './lib/report.js';
import type { ScenarioContext, ScenarioResult } from './lib/scenario.js';
import { timingFor } from './lib/timing.js';

const defaultOutput = fileURLToPath(new URL('./results/latest.json', import.meta.url));
const options = parseBenchOptions(process.argv.slice(2), defaultOutput);

// Every process of the run loads `@feira/*` from the compiled packages, as `npm start` runs them (tsx only
// runs the bench's own TypeScript), and so do the scenarios in this one: build first, then load them, so what
// is measured is the code in the tree. (Imported statically, the scenarios were loaded before the build ran: a
// tree without `dist` failed, and one with an older `dist` ran it here.) `tsc -b` is incremental: a tree built
// already costs it under a second.
const build = spawnSync('npm', ['run', 'build', '--silent'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: 'inherit',
});
if (build.status !== 0) {
  console.error('bench: `npm run build` failed; nothing was measured');
  process.exit(1);
}
const { scenarios } = await import('./scenarios/index.js');

if (options.list) {
  for (const s of scenarios) console.log(`${s.id.padEnd(22)} ${s.title}`);
  process.exit(0);
}
const unknown = options.only.filter((id) => !scenarios.some((s) => s.id === id));
if (unknown.length) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`);
  process.exit(2);
}
const selected = options.only.length ? scenarios.filter((s) => options.only.includes(s.id)) : scenarios;

const children = new ChildRegistry();
process.on('exit', () => children.killAllNow());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    children.killAllNow();
    process.exit(130);
  });
}

const timing = timingFor(options.mode);
const machine = describeMachine();
const startedAt = new Date().toISOString();
const runStart = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${((performance.now() - runStart) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
log(`${options.mode} mode, ${selected.length} scenario(s), ${machine.cores} cores, Node ${machine.nodeVersion}`);

/** A scenario ran past its time budget: a slow or busy machine, not a defect. */
class BudgetExceeded extends Error {
  constructor(budgetMs: number) {
    super(`stopped after the ${budgetMs / 1000} s budget`);
  }
}

const results: ScenarioResult[] = [];
for (const scenario of selected) {
  const t0 = performance.now();
  const scratchDir = mkdtempSync(join(tmpdir(), `feira-bench-${scenario.id}-`));
  const ctx: ScenarioContext = {
    mode: options.mode,
    children,
    scratchDir,
    postgresUrl: options.postgresUrl,
    notes: [],
    peakRssBytes: {},
    log: (message) => log(`${scenario.id}: ${message}`),
  };
  const base = { id: scenario.id, title: scenario.title, notes: ctx.notes, peakRssBytes: ctx.peakRssBytes };
  let result: ScenarioResult;
  const missing = await scenario.unavailable().catch((error: unknown) => `availability check failed: ${String(error)}`);
  if (missing) {
    log(`${scenario.id}: not available: ${missing}`);
    result = { ...base, status: 'not available', reason: missing, durationMs: 0, figures: [] };
  } else {
    log(`${scenario.id}: running`);
    let timer: NodeJS.Timeout | undefined;
    try {
      const budget = new Promise<never>((_, reject) => {
        const budgetMs = (options.mode === 'quick' ? scenario.quickBudgetMs : scenario.fullBudgetMs) ?? timing.scenarioBudgetMs;
        timer = setTimeout(() => reject(new BudgetExceeded(budgetMs)), budgetMs);
      });
      const figures = await Promise.race([scenario.run(ctx), budget]);
      result = { ...base, status: 'ok', reason: null, durationMs: 0, figures };
    } catch (error) {
      const status = error instanceof BudgetExceeded ? 'timed out' : 'failed';
      log(`${scenario.id}: ${status}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      result = {
        ...base,
        status,
        reason: error instanceof Error ? error.message : String(error),
        durationMs: 0,
        figures: [],
      };
    } finally {
      clearTimeout(timer);
      await children.stopAll();
    }
  }
  rmSync(scratchDir, { recursive: true, force: true });
  result.durationMs = Math.round(performance.now() - t0);
  results.push(result);
}

const report: BenchResults = {
  schema: RESULTS_SCHEMA,
  startedAt,
  finishedAt: new Date().toISOString(),
  mode: options.mode,
  preliminary: options.mode === 'quick',
  machine,
  scenarios: results,
};
const problems = validateResults(JSON.parse(JSON.stringify(report)));
if (problems.length) {
  console.error(`results failed validation:\n${problems.join('\n')}`);
  process.exitCode = 1;
}
mkdirSync(dirname(options.output), { recursive: true });
writeFileSync(options.output, `${JSON.stringify(report, null, 2)}\n`);
console.log(renderMarkdown(report));
log(`results written to ${options.output}`);
if (options.compare) {
  // Informational (D80): a missing or unreadable older file is said, never a failed run.
  try {
    const before = JSON.parse(readFileSync(options.compare, 'utf8')) as BenchResults;
    const invalid = validateResults(before);
    if (invalid.length) throw new Error(`not a results file: ${invalid.slice(0, 3).join('; ')}`);
    const comparison = compareResults(report, before, options.spread ?? undefined);
    console.log(`\n${renderComparison(comparison, report, before, options.compare)}`);
  } catch (error) {
    log(`--compare ${options.compare}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
// A crashed scenario fails the run (CI checks that the suite completes); "not available" and "timed out" do not:
// CI never judges speed.
if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
