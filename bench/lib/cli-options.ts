import { parseArgs } from 'node:util';

export type BenchMode = 'quick' | 'full';

export interface BenchOptions {
  mode: BenchMode;
  only: string[];
  output: string;
  postgresUrl: string | null;
  list: boolean;
  /** An older results file to print this run's figures beside (D80). */
  compare: string | null;
  /** Run-to-run spread (a fraction) for the comparison's verdicts; null: by mode. */
  spread: number | null;
}

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export const USAGE = `Usage: npm run bench -- [--quick] [--only <scenario>[,<scenario>]] [--output <file>] [--postgres <url>|--no-postgres] [--list]
                     [--compare <older results.json> [--spread <fraction>]]

  --quick        short runs (a few minutes in all; CI runs four of them); figures are indicative only
  --only         run only these scenarios (repeat or comma-separate); see --list
  --output       results file (default bench/results/latest.json)
  --postgres     PostgreSQL server for the PostgreSQL variants (default $FEIRA_BENCH_DATABASE_URL,
                 then $FEIRA_TEST_DATABASE_URL, then ${DEFAULT_POSTGRES_URL}); a fresh schema is
                 created and dropped
  --no-postgres  skip the PostgreSQL variants (reported as not available)
  --list         print the scenarios and exit
  --compare      after the run, print each figure beside the same figure of an older results file
                 (e.g. bench/baselines/quick.json), with the ratio and "slower beyond the spread" marked;
                 informational, never fails the run
  --spread       the run-to-run spread for those marks (default 0.3 in quick mode, 0.15 in full)`;

function spreadOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  const spread = Number(text);
  if (!Number.isFinite(spread) || spread <= 0 || spread >= 1) {
    console.error(`--spread must be a fraction between 0 and 1 (0.2 for ±20 %), got ${text}`);
    process.exit(2);
  }
  return spread;
}

export function parseBenchOptions(argv: string[], defaultOutput: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      output: { type: 'string' },
      postgres: { type: 'string' },
      'no-postgres': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      compare: { type: 'string' },
      spread: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const postgresUrl = values['no-postgres']
    ? null
    : (values.postgres ?? process.env.FEIRA_BENCH_DATABASE_URL ?? process.env.FEIRA_TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL);
  return {
    mode: values.quick ? 'quick' : 'full',
    only: (values.only ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean),
    output: values.output ?? defaultOutput,
    postgresUrl,
    list: values.list,
    compare: values.compare ?? null,
    spread: spreadOf(values.spread),
  };
}
