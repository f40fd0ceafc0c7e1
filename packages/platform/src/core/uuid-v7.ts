import type { Random } from './random.js';

const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'));

/**
 * A UUID v7 (RFC 9562 §5.7): 48 bits of `ms`, then 74 random bits taken from
 * `bytes[at … at+9]`. Ids made one after another sort together, so rows keyed
 * by them append to the end of their indexes instead of landing on random
 * pages: the seeder's million-row inserts, and the outbox and delivery tables,
 * written thousands of rows a second (a SQLite insert into the delivery table
 * costs far less with time-ordered ids than with v4 ones: docs/decisions.md
 * D10). The seeder draws its random bytes a batch at a time.
 */
export function uuidV7(ms: number, bytes: Uint8Array, at: number): string {
  // The 48-bit timestamp as two integers, formatted through the byte table (no toString/padStart/slice).
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  return (
    `${HEX[(high >>> 8) & 0xff]}${HEX[high & 0xff]}${HEX[low >>> 24]}${HEX[(low >>> 16) & 0xff]}-` +
    `${HEX[(low >>> 8) & 0xff]}${HEX[low & 0xff]}-7${((bytes[at] as number) & 0x0f).toString(16)}${HEX[bytes[at + 1] as number]}-` +
    `${HEX[0x80 | ((bytes[at + 2] as number) & 0x3f)]}${HEX[bytes[at + 3] as number]}-` +
    `${HEX[bytes[at + 4] as number]}${HEX[bytes[at + 5] as number]}${HEX[bytes[at + 6] as number]}` +
    `${HEX[bytes[at + 7] as number]}${HEX[bytes[at + 8] as number]}${HEX[bytes[at + 9] as number]}`
  );
}

/** What `uuidV7` makes: lowercase, version 7, the RFC 9562 variant (for checks of stored and sent ids). */
export const UUID_V7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Random bytes one UUID v7 consumes. */
export const UUID_V7_RANDOM_BYTES = 10;

/** A UUID v7 for `at`, its random bits from the injected Random. */
export function timeOrderedUuid(random: Random, at: Date): string {
  return uuidV7(at.getTime(), random.bytes(UUID_V7_RANDOM_BYTES), 0);
}

/**
 * `count` UUID v7 for `at`, their random bits drawn in one call (a draw per id
 * showed in a drain's CPU profile: docs/decisions.md D10).
 */
export function timeOrderedUuids(random: Random, at: Date, count: number): string[] {
  const bytes = random.bytes(count * UUID_V7_RANDOM_BYTES);
  return Array.from({ length: count }, (_, i) => uuidV7(at.getTime(), bytes, i * UUID_V7_RANDOM_BYTES));
}

/**
 * The first characters every UUID v7 of millisecond `ms` starts with
 * (`tttttttt-tttt`): each v7 id of an earlier millisecond sorts before it as
 * text, each of `ms` or later at or after it. A range of such prefixes is a
 * range of the ids' times, read through their key's index.
 */
export function uuidV7TimePrefix(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}
