import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cryptoRandom } from './random.js';
import { timeOrderedUuid, timeOrderedUuids, UUID_V7_PATTERN, UUID_V7_RANDOM_BYTES, uuidV7 } from './uuid-v7.js';

// Time-ordered ids key the seeded records, the outbox and the deliveries: clients
// read them as UUIDs, and the tables rely on their order to append to their indexes.

describe('UUID v7', () => {
  it('uuidV7 is a valid RFC 9562 version 7 UUID carrying the timestamp, random in the rest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 1 }),
        fc.uint8Array({ minLength: UUID_V7_RANDOM_BYTES, maxLength: UUID_V7_RANDOM_BYTES }),
        (ms, bytes) => {
          const id = uuidV7(ms, bytes, 0);
          expect(id).toMatch(UUID_V7_PATTERN);
          expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(ms);
          // The 74 random bits are the given bytes' (12 from the first two, 62 from the other eight).
          const hex = id.replaceAll('-', '');
          expect(Number.parseInt(hex.slice(13, 16), 16)).toBe((((bytes[0] as number) & 0x0f) << 8) | (bytes[1] as number));
          expect(hex.slice(20)).toBe(Buffer.from(bytes.subarray(4)).toString('hex'));
        },
      ),
    );
  });

  it('uuidV7 ids sort by their timestamp (so keys made later append to the index)', () => {
    const bytes = new Uint8Array(UUID_V7_RANDOM_BYTES * 2).fill(0xff);
    bytes.fill(0, UUID_V7_RANDOM_BYTES);
    expect(uuidV7(1_700_000_000_000, bytes, 0) < uuidV7(1_700_000_000_001, bytes, UUID_V7_RANDOM_BYTES)).toBe(true);
  });

  it('timeOrderedUuid: ids made at later times sort after earlier ones, whatever their random bits', () => {
    const start = Date.parse('2026-11-25T05:00:00.000Z');
    const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedUuid(cryptoRandom, new Date(start + i)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(UUID_V7_PATTERN);
  });

  it('timeOrderedUuids: distinct v7 ids carrying the given millisecond, from one draw of random bits', () => {
    const draws: number[] = [];
    const counting = {
      ...cryptoRandom,
      bytes(n: number) {
        draws.push(n);
        return cryptoRandom.bytes(n);
      },
    };
    const at = new Date('2026-11-25T05:00:00.123Z');
    const ids = timeOrderedUuids(counting, at, 500);
    expect(draws).toEqual([500 * UUID_V7_RANDOM_BYTES]);
    expect(new Set(ids).size).toBe(500);
    for (const id of ids) {
      expect(id).toMatch(UUID_V7_PATTERN);
      expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at.getTime());
    }
  });
});
