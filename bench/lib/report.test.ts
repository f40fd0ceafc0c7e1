import { describe, expect, it } from 'vitest';
import { type BenchResults, RESULTS_SCHEMA, renderMarkdown, validateResults } from './report.js';
import { figure } from './scenario.js';
import { percentile, summarizeMicros } from './stats.js';

const sample = (): BenchResults => ({
  schema: RESULTS_SCHEMA,
  startedAt: '2026-11-22T03:00:00.000Z',
  finishedAt: '2026-11-22T03:01:00.000Z',
  mode: 'quick',
  preliminary: true,
  machine: {
    cores: 2,
    cpuModel: 'Test CPU',
    nodeVersion: 'v20.20.2',
    platform: 'linux 6',
    arch: 'x64',
    totalMemoryBytes: 2 ** 33,
    loadAverage1m: 0.5,
  },
  scenarios: [
    {
      id: 'webhook-verify',
      title: 'Webhook verify (SDK)',
      status: 'ok',
      reason: null,
      notes: ['a note'],
      durationMs: 10,
      peakRssBytes: { platform: 100 * 1048576 },
      figures: [
        figure('feira-sdk 1 KiB', 30_000, 'verifications/s', {
          baseline: { name: 'fastest peer (stripe)', value: 20_000, unit: 'verifications/s' },
          target: { text: '≥ 1.0× the fastest peer', met: true },
        }),
      ],
    },
    {
      id: 'quote',
      title: 'Quote overhead | deadline',
      status: 'not available',
      reason: 'the storefront quote has not landed',
      notes: [],
      durationMs: 0,
      peakRssBytes: {},
      figures: [],
    },
  ],
});

describe('bench results', () => {
  it('a complete run round-trips through JSON and validates', () => {
    expect(validateResults(JSON.parse(JSON.stringify(sample())))).toEqual([]);
  });

  it('the ratio is the figure divided by its same-run baseline', () => {
    expect(sample().scenarios[0]?.figures[0]?.ratio).toBe(1.5);
  });

  it('rejects a document without machine, with a bad status, or with a non-numeric figure', () => {
    const broken = JSON.parse(JSON.stringify(sample()));
    delete broken.machine;
    broken.scenarios[1].status = 'skipped';
    broken.scenarios[0].figures[0].value = 'fast';
    expect(validateResults(broken)).toEqual([
      'machine must be an object',
      'scenarios[0].figures[0].value must be a finite number or null',
      'scenarios[1].status is invalid',
    ]);
  });

  it('prints one Markdown row per figure, marks preliminary runs and says why a scenario did not run', () => {
    const table = renderMarkdown(sample());
    expect(table).toContain('PRELIMINARY');
    expect(table).toContain('| Scenario | Figure | Value | Baseline (same run) | Ratio | Target |');
    expect(table).toContain(
      '| Webhook verify (SDK) | feira-sdk 1 KiB | 30,000 verifications/s | fastest peer (stripe): 20,000 verifications/s | 1.5× | ≥ 1.0× the fastest peer: met |',
    );
    // A pipe in a title would break the table: it is escaped.
    expect(table).toContain('| Quote overhead \\| deadline | not available: the storefront quote has not landed |');
    expect(table).toContain('platform 100 MiB');
    for (const row of table.split('\n').filter((l) => l.startsWith('|'))) {
      expect(row.split(/(?<!\\)\|/).length).toBe(8);
    }
  });
});

describe('latency statistics', () => {
  it('nearest-rank percentiles, reported in milliseconds from microsecond samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => (i + 1) * 1000);
    expect(percentile(Float64Array.from(samples), 50)).toBe(50_000);
    const summary = summarizeMicros(samples.reverse());
    expect(summary).toMatchObject({ samples: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
  });
});
