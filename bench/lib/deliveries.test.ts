import { describe, expect, it } from 'vitest';
import { endToEndRate } from './deliveries.js';

/** Arrival times (ms) of `count` deliveries, one every `everyMs` from `from`. */
const arrivals = (count: number, everyMs: number, from = 0) => Array.from({ length: count }, (_, i) => from + i * everyMs);

describe('the end-to-end sustained rate a latency phase is set from', () => {
  it('is what the pipeline took in when its deliveries kept up', () => {
    // 1,000 deliveries a second arriving; 400 writes a second acknowledged.
    expect(endToEndRate(400, arrivals(1_000, 1), 1_000)).toBe(400);
  });

  it('is what it delivered when intake outran delivery, so a growing queue is not counted as rate', () => {
    // 5,000 enqueues a second acknowledged; deliveries every 4 ms: 250 a second.
    expect(endToEndRate(5_000, arrivals(500, 4), 2_000)).toBe(250);
  });

  it('counts only deliveries up to the end of the intake, not the drain after it', () => {
    // 250 a second during the intake (ending at 1,996 ms), then a backlog drained at 2,000 a second.
    const times = [...arrivals(500, 4), ...arrivals(2_000, 0.5, 2_000)];
    expect(endToEndRate(5_000, times, 1_996)).toBe(250);
    expect(endToEndRate(5_000, times, 3_000)).toBeGreaterThan(250);
  });

  it('is unknown when nothing was delivered', () => {
    expect(endToEndRate(400, [], 1_000)).toBeNull();
  });
});
