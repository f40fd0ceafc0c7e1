import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamps } from './seed-records-values.js';

// The seeder's fast value helpers must give exactly what the general-purpose
// calls give: API clients read these timestamps.

describe('seed values', () => {
  it('isoTimestamps formats every millisecond exactly as Date#toISOString, in any order', () => {
    const iso = isoTimestamps();
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 3e14 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 5000 },
    );
    for (const ms of [0, 86_399_999, 86_400_000, Date.UTC(2024, 1, 29, 23, 59, 59, 999), 253_402_300_799_999]) {
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
