/**
 * Cheap per-row values for the seeder (its rate target leaves little time per
 * row for everything, SQLite included: docs/decisions.md D26). Each
 * helper returns exactly what the general-purpose call would, faster.
 */

const DAY_MS = 86_400_000;
/** Date#toISOString switches to ±YYYYYY outside these years; the fast path only covers 0000–9999. */
const MAX_FAST_MS = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

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
