import { MAX_MONEY_AMOUNT } from '@feira/contract';
import { invalidParameter } from '../core/platform-error.js';

/**
 * Money is a decimal with 2 places in the API and integer cents at rest, so
 * sums and comparisons are exact. A value with more places is refused (422)
 * rather than silently rounded.
 *
 * Every amount and every total stays within ±MAX_MONEY_CENTS (10^13 cents,
 * the contract's MAX_MONEY_AMOUNT): far below 2^53, so a double holds it
 * exactly, and within PostgreSQL's bigint and SQLite's integer, so neither
 * database can overflow or round it (issue 17 §2). Totals are computed only
 * by `sumOfLinesCents`, which refuses a sum past the maximum with a 422 that
 * names the field the caller sent.
 */
export const MAX_MONEY_CENTS = MAX_MONEY_AMOUNT * 100;

const tooLarge = (field: string) =>
  invalidParameter(field, 'body', `makes the amount exceed the maximum of ${MAX_MONEY_AMOUNT.toLocaleString('en')}`);

export function toCents(amount: number, field: string): number {
  const cents = Math.round(amount * 100);
  if (!Number.isFinite(amount) || Math.abs(amount * 100 - cents) > 1e-6 || !Number.isSafeInteger(cents)) {
    throw invalidParameter(field, 'body', 'must be an amount with at most 2 decimal places');
  }
  if (Math.abs(cents) > MAX_MONEY_CENTS) throw tooLarge(field);
  return cents;
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
