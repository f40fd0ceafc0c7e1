import { invalidParameter } from '../core/platform-error.js';

/**
 * Money is a decimal with 2 places in the API and integer cents at rest, so
 * sums and comparisons are exact. A value with more places is refused (422)
 * rather than silently rounded.
 */
export function toCents(amount: number, field: string): number {
  const cents = Math.round(amount * 100);
  if (!Number.isFinite(amount) || Math.abs(amount * 100 - cents) > 1e-6 || !Number.isSafeInteger(cents)) {
    throw invalidParameter(field, 'body', 'must be an amount with at most 2 decimal places');
  }
  return cents;
}

export function fromCents(cents: number): number {
  return Number(cents) / 100;
}
