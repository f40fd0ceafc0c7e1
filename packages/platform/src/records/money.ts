import { MAX_MONEY_AMOUNT } from '@feira/contract';
import { refuseField } from '../core/refusals.js';

/**
 * Money (spec-notes R1) is a decimal with 2 places in the API and integer
 * cents at rest, so sums and comparisons are exact. A value with more places
 * is refused (422) rather than silently rounded.
 *
 * Every amount and every total stays within ±MAX_MONEY_CENTS (10^13 cents,
 * the contract's MAX_MONEY_AMOUNT): far below 2^53, so a double holds it
 * exactly, and within PostgreSQL's bigint and SQLite's integer, so neither
 * database can overflow or round it. Totals are computed only by
 * `sumOfLinesCents`, which refuses a sum past the maximum with a 422 that
 * names the field the caller sent.
 */
export const MAX_MONEY_CENTS = MAX_MONEY_AMOUNT * 100;

const tooLarge = (field: string) =>
  refuseField('RECORD_MONEY_TOO_LARGE', field, 'body', { max: MAX_MONEY_AMOUNT.toLocaleString('en') });

const notTwoPlaces = (field: string) => refuseField('RECORD_MONEY_NOT_TWO_PLACES', field, 'body');

/**
 * An API amount in integer cents, or a 422 naming `field`. The amount must be
 * exactly the double that its 2-place decimal parses to: `1e-9` is not `0.00`,
 * and `1.005` (which a double holds as 1.00499…) is not `1.00` or `1.01`.
 * Rounding instead would store a value the caller never sent.
 *
 * `cents / 100` is correctly rounded, so it gives back the very double JSON
 * made of a 2-place decimal, and no other double: the comparison is exact,
 * with no tolerance and no string work.
 */
export function toCents(amount: number, field: string): number {
  // JSON.parse reads 1e400 as Infinity; Ajv already refuses it, this keeps every other caller safe too.
  if (!Number.isFinite(amount)) throw notTwoPlaces(field);
  if (Math.abs(amount) > MAX_MONEY_AMOUNT) throw tooLarge(field);
  const cents = Math.round(amount * 100);
  if (cents / 100 !== amount) throw notTwoPlaces(field);
  // -0 (from "-0" or "-0.00") is stored as 0.
  return cents === 0 ? 0 : cents;
}

export function fromCents(cents: number): number {
  return Number(cents) / 100;
}

/**
 * `startCents` + Σ price × quantity, in integer cents, checked at every step:
 * the first line that takes the sum past MAX_MONEY_CENTS is refused with a
 * 422 naming `fieldOf(index)` (the caller's field, e.g. `items.3.quantity`).
 * Both factors are safe integers, so a product at or under the maximum is exact.
 */
export function sumOfLinesCents(
  lines: readonly { priceCents: number; quantity: number }[],
  fieldOf: (index: number) => string,
  startCents = 0,
): number {
  let total = startCents;
  lines.forEach((line, index) => {
    const lineCents = line.priceCents * line.quantity;
    if (!Number.isSafeInteger(lineCents) || Math.abs(lineCents) > MAX_MONEY_CENTS) throw tooLarge(fieldOf(index));
    total += lineCents;
    if (Math.abs(total) > MAX_MONEY_CENTS) throw tooLarge(fieldOf(index));
  });
  return total;
}
