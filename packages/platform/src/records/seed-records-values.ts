/**
 * Cheap per-row values for the seeder (issue 4's seeding target, BENCHMARKS.md,
 * leaves a few microseconds per row for everything, SQLite included). Each
 * helper returns exactly what the general-purpose call would, faster.
 */

const DAY_MS = 86_400_000;
/** Date#toISOString switches to ±YYYYYY outside these years; the fast path only covers 0000–9999. */
const MAX_FAST_MS = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const HEX = Array.from({ length: 256 }, (_, n) => n.toString(16).padStart(2, '0'));

/** A small fast PRNG (mulberry32) for the seeder's choices: a million rows need a million cheap draws. */
export function fastGenerator(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `new Date(ms).toISOString()` for integer milliseconds, with the date part
 * formatted once per day: seeded timestamps share a few hundred days, and two
 * Date conversions per row were a visible share of the seeder's profile.
 */
export function isoTimestamps(): (ms: number) => string {
  const days = new Map<number, string>();
  return (ms) => {
    if (!Number.isInteger(ms) || ms < 0 || ms >= MAX_FAST_MS) return new Date(ms).toISOString();
    const day = Math.floor(ms / DAY_MS);
    let prefix = days.get(day);
    if (prefix === undefined) {
      prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
      days.set(day, prefix);
    }
    let rest = ms - day * DAY_MS;
    const milli = rest % 1000;
    rest = (rest - milli) / 1000;
    const second = rest % 60;
    rest = (rest - second) / 60;
    const minute = rest % 60;
    const hour = (rest - minute) / 60;
    return `${prefix}${PAD2[hour]}:${PAD2[minute]}:${PAD2[second]}.${PAD3[milli]}Z`;
  };
}

/**
 * A UUID v7 (RFC 9562 §5.7): 48 bits of `ms`, then 74 random bits taken from
 * `bytes[at … at+9]` (the injected Random, drawn a batch at a time). Seeded ids
 * are time-ordered by created_at, so a million primary-key inserts append to
 * the key's index instead of landing on random pages of it (less CPU for the
 * insert phase than random v4 keys; BENCHMARKS.md, seed).
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

/** Random bytes one UUID v7 consumes. */
export const UUID_V7_RANDOM_BYTES = 10;

const FIRST_NAMES = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Heitor', 'Iara', 'João', 'Luíza', 'Marcos'];
/** Surnames for seeded customers and product titles. */
export const SEED_LAST_NAMES = [
  'Silva',
  'Souza',
  'Oliveira',
  'Santos',
  'Lima',
  'Pereira',
  'Costa',
  'Almeida',
  'Ribeiro',
  'Gomes',
];
const CUSTOMERS = 5000;

/** The seeded customers, built once: records of several kinds refer to the same people. */
export const SEED_CUSTOMERS = {
  count: CUSTOMERS,
  ids: Array.from({ length: CUSTOMERS }, (_, n) => `cust-${n}`),
  names: Array.from({ length: CUSTOMERS }, (_, n) => `${FIRST_NAMES[n % 12]} ${SEED_LAST_NAMES[n % 10]}`),
};
