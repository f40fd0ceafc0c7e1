import type { Random } from '../core/random.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** spec-notes W4: waits after attempts 1…7; the 8th failed attempt makes the delivery dead. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** W4: ±20 % jitter, so receivers recovering from an outage are not hit by every retry at once. */
const JITTER_RATIO = 0.2;
/** W4: `Retry-After` is honoured within these bounds (the shortest and longest wait of the schedule). */
const RETRY_AFTER_MIN_MS = RETRY_DELAYS_MS[0];
const RETRY_AFTER_MAX_MS = 10 * HOUR;
/** W4: a subscription failing for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;

/**
 * When the next attempt happens after failed attempt number `attempts`
 * (1-based), or null when the delivery is dead. A valid `Retry-After` replaces
 * the scheduled wait (clamped, no jitter: the receiver asked for that time).
 */
export function nextAttemptAt(attempts: number, now: Date, random: Random, retryAfterMs: number | null = null): Date | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  if (retryAfterMs !== null) {
    return new Date(now.getTime() + Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, retryAfterMs)));
  }
  const base = RETRY_DELAYS_MS[attempts - 1] ?? RETRY_AFTER_MAX_MS;
  const factor = 1 + (random.fraction() * 2 - 1) * JITTER_RATIO;
  return new Date(now.getTime() + Math.round(base * factor));
}

/** RFC 9110 §10.2.3: `Retry-After` is delay-seconds or an HTTP-date. Null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const header = Array.isArray(value) ? value[0] : value;
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * SECOND;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}
