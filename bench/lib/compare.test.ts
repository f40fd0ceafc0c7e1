import { describe, expect, it } from 'vitest';
import { compareResults, directionOf, renderComparison } from './compare.js';
import { type BenchResults, RESULTS_SCHEMA } from './report.js';
import { type Figure, figure } from './scenario.js';

const run = (figures: Figure[], cpuModel = 'Test CPU'): BenchResults => ({
  schema: RESULTS_SCHEMA,
  startedAt: '2026-11-26T03:00:00.000Z',
  finishedAt: '2026-11-26T03:01:00.000Z',
  mode: 'quick',
  preliminary: true,
  machine: {
    cores: 2,
    cpuModel,
    nodeVersion: 'v20.20.2',
    platform: 'linux 6',
    arch: 'x64',
    totalMemoryBytes: 2 ** 33,
    loadAverage1m: 1,
  },
  scenarios: [
    {
      id: 'list-api',
      title: 'List API (orders)',
      status: 'ok',
      reason: null,
      notes: [],
      durationMs: 1,
      peakRssBytes: {},
      figures,
    },
  ],
});

const sqlBaseline = (value: number) => ({ baseline: { name: 'same SQL via driver p50', value, unit: 'ms' } });

describe('bench --compare (D80)', () => {
  it('rates are better higher, times and sizes lower, ratios get no verdict', () => {
    expect(directionOf('req/s')).toBe('higher');
    expect(directionOf('verifications/CPU-s')).toBe('higher');
    expect(directionOf('ms')).toBe('lower');
    expect(directionOf('MiB')).toBe('lower');
    expect(directionOf('×')).toBeNull();
  });

  it('marks a figure that got worse by more than the spread, and one that got better, and leaves the rest within it', () => {
    const before = run([
      figure('p50', 1, 'ms'),
      figure('req/s', 1000, 'req/s'),
      figure('other', 10, 'ms'),
      figure('depth', 1, '×'),
    ]);
    const now = run([
      figure('p50', 1.5, 'ms'),
      figure('req/s', 1500, 'req/s'),
      figure('other', 11, 'ms'),
      figure('depth', 3, '×'),
    ]);
    const { rows } = compareResults(now, before, 0.2);
    expect(rows.map((r) => [r.figure, r.ratio, r.verdict])).toEqual([
      ['p50', 1.5, 'slower beyond the spread'],
      ['req/s', 1.5, 'faster beyond the spread'],
      ['other', 1.1, 'within the spread'],
      ['depth', 3, 'no verdict'],
    ]);
  });

  it('gives no verdict to a difference that went negative: its quotient says nothing', () => {
    const before = run([figure('overhead p99 (quote p99 − /health p99)', -0.22, 'ms'), figure('p99', 2, 'ms')]);
    const now = run([figure('overhead p99 (quote p99 − /health p99)', -0.47, 'ms'), figure('p99', 2, 'ms')]);
    const { rows } = compareResults(now, before, 0.2);
    expect(rows.map((r) => [r.figure, r.ratio, r.verdict])).toEqual([
      ['overhead p99 (quote p99 − /health p99)', null, 'no verdict'],
      ['p99', 1, 'within the spread'],
    ]);
  });

  it('reads the ratio to the same-run baseline when both runs have one: a slower host is not a slower platform', () => {
    // The whole host got half as fast: the API and the raw SQL both took twice as long.
    const before = run([figure('SQLite cursor page 1 p50', 0.5, 'ms', sqlBaseline(0.1))]);
    const now = run([figure('SQLite cursor page 1 p50', 1, 'ms', sqlBaseline(0.2))], 'Another CPU');
    const comparison = compareResults(now, before, 0.2);
    expect(comparison.rows[0]).toMatchObject({ ratio: 2, baselineRatio: 1, verdict: 'within the spread' });
    expect(comparison.warnings.join(' ')).toContain('other machines');
    const text = renderComparison(comparison, now, before, 'bench/baselines/quick.json');
    expect(text).toContain('| List API (orders) | SQLite cursor page 1 p50 | 1 ms | 0.5 ms | 2× | 1× | within the spread |');
    expect(text).toContain('0 of 1 figures slower by more than the spread');
  });

  it('names figures only one run has, so a renamed figure is not silently dropped', () => {
    const comparison = compareResults(run([figure('new figure', 1, 'ms')]), run([figure('old figure', 1, 'ms')]));
    expect(comparison.rows).toEqual([]);
    expect(comparison.onlyNow).toEqual(['list-api: new figure']);
    expect(comparison.onlyBefore).toEqual(['list-api: old figure']);
  });
});
