/** Latency summary in milliseconds, from samples in microseconds (sub-millisecond targets need that resolution). */
export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarizeMicros(samplesUs: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(samplesUs).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const ms = (us: number) => Math.round(us) / 1000;
  return {
    samples: sorted.length,
    p50Ms: ms(percentile(sorted, 50)),
    p90Ms: ms(percentile(sorted, 90)),
    p99Ms: ms(percentile(sorted, 99)),
    maxMs: ms(sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN),
    meanMs: ms(sorted.length ? sum / sorted.length : Number.NaN),
  };
}

/** Samples are kept in a preallocated buffer; beyond its size we keep a uniform reservoir so memory stays bounded. */
export class LatencyRecorder {
  private readonly buffer: Float64Array;
  private seen = 0;
  private state = 0x9e3779b9;

  constructor(capacity = 1_000_000) {
    this.buffer = new Float64Array(capacity);
  }

  record(us: number): void {
    if (this.seen < this.buffer.length) {
      this.buffer[this.seen] = us;
    } else {
      // xorshift: a deterministic, cheap reservoir index (this is measurement code, not platform logic).
      this.state ^= this.state << 13;
      this.state ^= this.state >>> 17;
      this.state ^= this.state << 5;
      const slot = (this.state >>> 0) % (this.seen + 1);
      if (slot < this.buffer.length) this.buffer[slot] = us;
    }
    this.seen += 1;
  }

  get count(): number {
    return this.seen;
  }

  summary(): LatencySummary {
    return summarizeMicros(this.buffer.subarray(0, Math.min(this.seen, this.buffer.length)));
  }
}

export const round = (value: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** A measured number, or null when there is none (NaN from an empty sample arrives as null over IPC). */
export const finite = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** a − b, or null when either is missing. */
export const difference = (a: number | null | undefined, b: number | null | undefined, digits = 3): number | null => {
  const x = finite(a);
  const y = finite(b);
  return x === null || y === null ? null : round(x - y, digits);
};
