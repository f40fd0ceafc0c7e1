// Prints a results file beside an older one, without running anything (D80):
//   node --import tsx bench/compare.ts <results.json> <older results.json> [--spread 0.3]
// `npm run bench -- --compare <older>` does the same right after a run.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareResults, renderComparison } from './lib/compare.js';
import { type BenchResults, validateResults } from './lib/report.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { spread: { type: 'string' } } });
const [nowFile, beforeFile] = positionals;
if (!nowFile || !beforeFile) {
  console.error('usage: node --import tsx bench/compare.ts <results.json> <older results.json> [--spread <fraction>]');
  process.exit(2);
}
const read = (file: string): BenchResults => {
  const value = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  const problems = validateResults(value);
  if (problems.length) throw new Error(`${file} is not a results file: ${problems.slice(0, 3).join('; ')}`);
  return value;
};
const now = read(nowFile);
const before = read(beforeFile);
const spread = values.spread === undefined ? undefined : Number(values.spread);
console.log(renderComparison(compareResults(now, before, spread), now, before, beforeFile));
