import type { BenchMode } from './cli-options.js';
import type { MachineInfo } from './machine.js';
import type { Figure, ScenarioResult } from './scenario.js';

export const RESULTS_SCHEMA = 'feira-bench/1';

/** The contents of bench/results/latest.json. */
export interface BenchResults {
  schema: typeof RESULTS_SCHEMA;
  startedAt: string;
  finishedAt: string;
  mode: BenchMode;
  /** Quick-mode figures come from short runs on small data: indicative only. */
  preliminary: boolean;
  machine: MachineInfo;
  scenarios: ScenarioResult[];
}

/** Checks the shape of a results document; returns the problems found (empty when valid). */
export function validateResults(value: unknown): string[] {
  const problems: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isNumberOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
  if (!isObject(value)) return ['results must be an object'];
  if (value.schema !== RESULTS_SCHEMA) problems.push(`schema must be ${RESULTS_SCHEMA}`);
  if (value.mode !== 'quick' && value.mode !== 'full') problems.push('mode must be quick or full');
  for (const key of ['startedAt', 'finishedAt']) {
    if (typeof value[key] !== 'string' || Number.isNaN(Date.parse(value[key] as string))) problems.push(`${key} must be a date`);
  }
  const machine = value.machine;
  if (!isObject(machine)) problems.push('machine must be an object');
  else {
    if (typeof machine.cores !== 'number' || machine.cores < 1) problems.push('machine.cores must be a positive number');
    for (const key of ['cpuModel', 'nodeVersion', 'platform']) {
      if (typeof machine[key] !== 'string') problems.push(`machine.${key} must be a string`);
    }
  }
  if (!Array.isArray(value.scenarios)) return [...problems, 'scenarios must be an array'];
  for (const [i, s] of (value.scenarios as unknown[]).entries()) {
    const at = `scenarios[${i}]`;
    if (!isObject(s)) {
      problems.push(`${at} must be an object`);
      continue;
    }
    if (typeof s.id !== 'string' || typeof s.title !== 'string') problems.push(`${at} needs an id and a title`);
    if (!['ok', 'not available', 'timed out', 'failed'].includes(s.status as string)) problems.push(`${at}.status is invalid`);
    if (s.status !== 'ok' && typeof s.reason !== 'string') problems.push(`${at} must say why it is ${s.status}`);
    if (!Array.isArray(s.figures)) {
      problems.push(`${at}.figures must be an array`);
      continue;
    }
    for (const [j, f] of (s.figures as unknown[]).entries()) {
      const fat = `${at}.figures[${j}]`;
      if (!isObject(f)) {
        problems.push(`${fat} must be an object`);
        continue;
      }
      if (typeof f.name !== 'string' || typeof f.unit !== 'string') problems.push(`${fat} needs a name and a unit`);
      if (!isNumberOrNull(f.value)) problems.push(`${fat}.value must be a finite number or null`);
      if (!isNumberOrNull(f.ratio)) problems.push(`${fat}.ratio must be a finite number or null`);
      if (f.baseline !== null && !(isObject(f.baseline) && isNumberOrNull(f.baseline.value))) {
        problems.push(`${fat}.baseline must be null or {name, value, unit}`);
      }
      if (f.target !== null && !(isObject(f.target) && typeof f.target.text === 'string')) {
        problems.push(`${fat}.target must be null or {text, met}`);
      }
    }
  }
  return problems;
}

const formatNumber = (value: number | null): string => {
  if (value === null) return '—';
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return String(Math.round(value * 1000) / 1000);
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const figureCells = (f: Figure): string[] => [
  cell(f.name),
  `${formatNumber(f.value)} ${f.unit}`,
  f.baseline ? cell(`${f.baseline.name}: ${formatNumber(f.baseline.value)} ${f.baseline.unit}`) : '—',
  f.ratio === null ? '—' : `${f.ratio}×`,
  f.target ? cell(`${f.target.text}: ${f.target.met === null ? 'n/a' : f.target.met ? 'met' : 'missed'}`) : '—',
];

const mib = (bytes: number | null | undefined) => (bytes == null ? '—' : `${Math.round(bytes / 1048576)} MiB`);

/** The Markdown table printed after a run (and pasted into BENCHMARKS.md). */
export function renderMarkdown(results: BenchResults): string {
  const m = results.machine;
  const lines = [
    `Feira benchmarks, ${results.mode} mode${results.preliminary ? ' (PRELIMINARY: short runs, small data)' : ''}, ${results.startedAt}`,
    '',
    `Machine: ${m.cores} cores, ${m.cpuModel}, ${Math.round(m.totalMemoryBytes / 1073741824)} GiB, ${m.platform} ${m.arch}, Node ${m.nodeVersion}, load average ${m.loadAverage1m} at start`,
    '',
    '| Scenario | Figure | Value | Baseline (same run) | Ratio | Target |',
    '|---|---|---|---|---|---|',
  ];
  for (const s of results.scenarios) {
    if (s.status !== 'ok') {
      lines.push(`| ${cell(s.title)} | ${s.status}: ${cell(s.reason ?? '')} | | | | |`);
      continue;
    }
    s.figures.forEach((f, i) => {
      lines.push(`| ${i === 0 ? cell(s.title) : ''} | ${figureCells(f).join(' | ')} |`);
    });
    const rss = Object.entries(s.peakRssBytes);
    if (rss.length > 0) {
      lines.push(`| | peak RSS | ${rss.map(([role, bytes]) => `${cell(role)} ${mib(bytes)}`).join(', ')} | | | |`);
    }
  }
  const notes = results.scenarios.flatMap((s) => s.notes.map((n) => `- ${s.title}: ${n}`));
  if (notes.length) lines.push('', 'Notes:', ...notes);
  return lines.join('\n');
}
