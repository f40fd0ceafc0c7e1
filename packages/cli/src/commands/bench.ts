import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

/** The repository root holding `bench/run.ts`: the suite lives beside the packages, not inside this one. */
function findBenchRoot(from: string): string | null {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'bench', 'run.ts'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * `feira bench`: runs the same suite as `npm run bench` (BENCHMARKS.md). The suite
 * starts its own processes and measures the TypeScript sources through tsx.
 */
export function register(program: Command): void {
  program
    .command('bench')
    .description('Run the benchmark suite (the same as `npm run bench`): writes bench/results/latest.json and prints a table')
    .option('--quick', 'short runs on small data (under 2 minutes), figures indicative only')
    .option('--only <scenarios>', 'comma-separated scenario ids (see --list)')
    .option('--output <file>', 'results file (default bench/results/latest.json)')
    .option('--postgres <url>', 'PostgreSQL server for the PostgreSQL variants (a scratch schema is created and dropped)')
    .option('--no-postgres', 'skip the PostgreSQL variants')
    .option('--list', 'list the scenarios')
    .option('--compare <file>', 'print each figure beside an older results file (e.g. bench/baselines/quick.json); informational')
    .option('--spread <fraction>', 'run-to-run spread for --compare marks (default 0.3 quick, 0.15 full)')
    .action(
      async (options: {
        quick?: boolean;
        only?: string;
        output?: string;
        postgres?: string | false;
        list?: boolean;
        compare?: string;
        spread?: string;
      }) => {
        const root = findBenchRoot(dirname(fileURLToPath(import.meta.url))) ?? findBenchRoot(process.cwd());
        if (!root) {
          console.error('feira bench: bench/run.ts not found; run it from a clone of the Feira repository.');
          process.exitCode = 1;
          return;
        }
        const args = [
          ...(options.quick ? ['--quick'] : []),
          ...(options.only ? ['--only', options.only] : []),
          ...(options.output ? ['--output', options.output] : []),
          ...(typeof options.postgres === 'string' ? ['--postgres', options.postgres] : []),
          ...(options.postgres === false ? ['--no-postgres'] : []),
          ...(options.list ? ['--list'] : []),
          ...(options.compare ? ['--compare', options.compare] : []),
          ...(options.spread ? ['--spread', options.spread] : []),
        ];
        // The benchmark's peers (stripe, svix, BullMQ…) are not in the default install: installed on first use (D72).
        const peers = join(root, 'peers', 'install.mjs');
        if (existsSync(peers) && spawnSync(process.execPath, [peers], { cwd: root, stdio: 'inherit' }).status !== 0) {
          console.error('feira bench: could not install the peers (node peers/install.mjs)');
          process.exitCode = 1;
          return;
        }
        const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'run.ts'), ...args], {
          cwd: root,
          stdio: 'inherit',
        });
        process.exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
      },
    );
}
