// CI: checks that a results file exists and has the documented shape. It never
// judges a figure against a target: CI checks completion, not speed.
import { readFileSync } from 'node:fs';
import { validateResults } from './lib/report.js';

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url).pathname;
const problems = validateResults(JSON.parse(readFileSync(file, 'utf8')));
if (problems.length) {
  console.error(`${file} is not valid results:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`${file}: valid results`);
