import type { BenchResults } from './report.js';
import type { Figure } from './scenario.js';

/**
 * `npm run bench -- --compare <older results.json>` (D80): each figure of this run beside the same
 * figure of an older run, the ratio now ÷ before, and a mark where it got worse by more than the
 * run-to-run spread. Where both runs measured the figure against a baseline of their own run (a bare
 * Fastify route, the same SQL through the driver, jose alone …), the verdict reads that ratio instead:
 * a host that got faster or slower between the runs moves both sides of it. Informational: nothing
 * here fails a run.
 */

/** Higher is better for rates; lower for times and sizes; no verdict for ratios and shares. */
export type Direction = 'higher' | 'lower' | null;

export function directionOf(unit: string): Direction {
  if (/\/(s|CPU-s)$/.test(unit)) return 'higher';
  if (['ms', 'µs', 's', 'MiB', 'B', 'bytes'].includes(unit)) return 'lower';
  return null;
}

/** The run-to-run spread assumed when none is given: quick runs are short, on small data, on shared hosts. */
export function defaultSpread(mode: BenchResults['mode']): number {
  return mode === 'quick' ? 0.3 : 0.15;
}

export type Verdict = 'slower beyond the spread' | 'faster beyond the spread' | 'within the spread' | 'no verdict';

export interface ComparisonRow {
  scenario: string;
  figure: string;
  unit: string;
  now: number | null;
  before: number | null;
  /** now ÷ before of the figure itself. */
  ratio: number | null;
  /** now ÷ before of each run's ratio to its own same-run baseline, when both have one. */
  baselineRatio: number | null;
  verdict: Verdict;
}

export interface Comparison {
  rows: ComparisonRow[];
  spread: number;
  /** Figures of this run the older one does not have, and the reverse. */
  onlyNow: string[];
  onlyBefore: string[];
  warnings: string[];
}

const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
const round = (n: number) => Math.round(n * 1000) / 1000;

function verdictOf(direction: Direction, ratio: number | null, spread: number): Verdict {
  if (direction === null || ratio === null) return 'no verdict';
  // "Better" as a factor above 1: for a time, before ÷ now.
  const gain = direction === 'higher' ? ratio : 1 / ratio;
  if (gain < 1 / (1 + spread)) return 'slower beyond the spread';
  if (gain > 1 + spread) return 'faster beyond the spread';
  return 'within the spread';
}

function positive(value: number | null | undefined): value is number {
  return finite(value) && value > 0;
}

function figuresOf(results: BenchResults): Map<string, { scenario: string; figure: Figure }> {
  const map = new Map<string, { scenario: string; figure: Figure }>();
  for (const s of results.scenarios) {
    if (s.status !== 'ok') continue;
    for (const f of s.figures) map.set(`${s.id}\u0000${f.name}`, { scenario: s.title, figure: f });
  }
  return map;
}

export function compareResults(now: BenchResults, before: BenchResults, spread = defaultSpread(now.mode)): Comparison {
  const warnings: string[] = [];
  if (now.mode !== before.mode) {
    warnings.push(`this run is ${now.mode} mode and the older one ${before.mode} mode: data sizes and run lengths differ`);
  }
  if (now.machine.cpuModel !== before.machine.cpuModel || now.machine.cores !== before.machine.cores) {
    warnings.push(
      `other machines: ${now.machine.cores} × ${now.machine.cpuModel} now, ${before.machine.cores} × ${before.machine.cpuModel} before; read the same-run baseline column`,
    );
  }
  for (const s of before.scenarios) {
    const current = now.scenarios.find((n) => n.id === s.id);
    if (current && current.status !== 'ok') warnings.push(`${s.title}: ${current.status} in this run (${current.reason ?? ''})`);
  }
  const nowFigures = figuresOf(now);
  const beforeFigures = figuresOf(before);
  const rows: ComparisonRow[] = [];
  for (const [key, { scenario, figure }] of nowFigures) {
    const old = beforeFigures.get(key);
    if (!old) continue;
    // A ratio only of two positive figures: a difference that can go negative (an overhead taken as
    // one percentile minus another) has no meaningful quotient, so it gets no verdict.
    const ratio = positive(figure.value) && positive(old.figure.value) ? round(figure.value / old.figure.value) : null;
    const baselineRatio =
      positive(figure.ratio) && positive(old.figure.ratio) && figure.baseline?.name === old.figure.baseline?.name
        ? round(figure.ratio / old.figure.ratio)
        : null;
    const direction = directionOf(figure.unit);
    rows.push({
      scenario,
      figure: figure.name,
      unit: figure.unit,
      now: figure.value,
      before: old.figure.value,
      ratio,
      baselineRatio,
      verdict: verdictOf(direction, baselineRatio ?? ratio, spread),
    });
  }
  const label = (key: string) => key.replace('\u0000', ': ');
  return {
    rows,
    spread,
    onlyNow: [...nowFigures.keys()].filter((k) => !beforeFigures.has(k)).map(label),
    onlyBefore: [...beforeFigures.keys()].filter((k) => !nowFigures.has(k)).map(label),
    warnings,
  };
}

const show = (n: number | null, unit: string) => (finite(n) ? `${round(n)} ${unit}` : '—');
const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderComparison(comparison: Comparison, now: BenchResults, before: BenchResults, beforeLabel: string): string {
  const pct = Math.round(comparison.spread * 100);
  const lines = [
    `Compared with ${beforeLabel} (${before.mode} mode, ${before.startedAt}, load average ${before.machine.loadAverage1m} at start; this run: load average ${now.machine.loadAverage1m})`,
    `Verdicts read the ratio to the same-run baseline where both runs have one, else the figure; run-to-run spread taken as ±${pct} % (--spread). Informational only.`,
    '',
    '| Scenario | Figure | Now | Before | Now ÷ before | Same-run baseline ratio, now ÷ before | Verdict |',
    '|---|---|---|---|---|---|---|',
  ];
  let scenario = '';
  for (const r of comparison.rows) {
    const mark = r.verdict === 'slower beyond the spread' ? `**${r.verdict}**` : r.verdict;
    lines.push(
      `| ${r.scenario === scenario ? '' : cell(r.scenario)} | ${cell(r.figure)} | ${show(r.now, r.unit)} | ${show(r.before, r.unit)} | ${
        r.ratio === null ? '—' : `${r.ratio}×`
      } | ${r.baselineRatio === null ? '—' : `${r.baselineRatio}×`} | ${mark} |`,
    );
    scenario = r.scenario;
  }
  const slower = comparison.rows.filter((r) => r.verdict === 'slower beyond the spread').length;
  lines.push('', `${slower} of ${comparison.rows.length} figures slower by more than the spread.`);
  if (comparison.warnings.length) lines.push('', 'Caveats:', ...comparison.warnings.map((w) => `- ${w}`));
  if (comparison.onlyNow.length) lines.push('', `Only in this run: ${comparison.onlyNow.join('; ')}`);
  if (comparison.onlyBefore.length) lines.push('', `Only in the older run: ${comparison.onlyBefore.join('; ')}`);
  return lines.join('\n');
}
