import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamps, UUID_V7_RANDOM_BYTES, uuidV7 } from './seed-records-values.js';

// The seeder's fast value helpers must give exactly what the general-purpose
// calls give: API clients read these timestamps and ids (issue 4).

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

  it('uuidV7 is a valid RFC 9562 version 7 UUID carrying the timestamp, random in the rest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: UUID_V7_RANDOM_BYTES, maxLength: UUID_V7_RANDOM_BYTES }),
        (ms, bytes) => {
          const id = uuidV7(ms, bytes, 0);
          expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(ms);
          // The 74 random bits are the given bytes' (12 from the first two, 62 from the other eight).
          const hex = id.replaceAll('-', '');
          expect(Number.parseInt(hex.slice(13, 16), 16)).toBe((((bytes[0] as number) & 0x0f) << 8) | (bytes[1] as number));
          expect(hex.slice(20)).toBe(Buffer.from(bytes.subarray(4)).toString('hex'));
        },
      ),
    );
  });

  it('uuidV7 ids sort by their timestamp (so seeded keys append to the primary key index)', () => {
    const bytes = new Uint8Array(UUID_V7_RANDOM_BYTES * 2).fill(0xff);
    bytes.fill(0, UUID_V7_RANDOM_BYTES);
    expect(uuidV7(1_700_000_000_000, bytes, 0) < uuidV7(1_700_000_000_001, bytes, UUID_V7_RANDOM_BYTES)).toBe(true);
  });
});
