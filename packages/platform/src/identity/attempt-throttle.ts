import { type Kysely, sql } from 'kysely';
import type { Schema } from '../storage/schema.js';

/**
 * Attempt counters for secrets checked by the identity provider (seller
 * passwords, client secrets), kept in the `auth_throttle` table so every API
 * process on the database shares them: a guesser cannot multiply its
 * allowance by spreading guesses over processes.
 *
 * An attempt is RESERVED before the secret is checked, in one atomic
 * `INSERT … ON CONFLICT DO UPDATE … WHERE … RETURNING` (SQLite ≥ 3.35 and
 * PostgreSQL alike): N concurrent guesses cannot all pass a check that only
 * counts finished ones. A key admits `allowance` attempts per window that are
 * either still being checked or failed; a success gives its reservation back,
 * so a legitimate user is never throttled by their own successes. A key with a
 * back-off also blocks itself after `freeFailures` consecutive failures, for a
 * time that doubles with each one up to `maxBlockSeconds`; a success clears it.
 *
 * A check whose secret carries 256 random bits (a client secret, spec-notes
 * I21) is throttled by failures alone: `refusalAmong` judges its keys' rows before the
 * secret is compared and `countFailure` records a wrong one, so a success
 * writes nothing. `reserved` then counts the window's failures.
 */
export interface ThrottlePolicy {
  /** Attempts in flight or failed that one key may have per window. */
  allowance: number;
  windowSeconds: number;
  backoff?: { freeFailures: number; maxBlockSeconds: number };
}

export interface ThrottleKey {
  key: string;
  policy: ThrottlePolicy;
}

interface ReservedKey extends ThrottleKey {
  /** The window the reservation was taken in: it is given back only to that window. */
  windowStartedAt: string;
}

export type Reservation = { admitted: true; keys: ReservedKey[] } | { admitted: false; key: string; retryAfterSeconds: number };

/** How an admitted attempt ended: `unchecked` when it was refused before the secret was compared. */
export type AttemptOutcome = 'success' | 'failure' | 'unchecked';

/** Seconds of block after `failures` consecutive failures (0 while they are free). */
function blockSecondsAfter(failures: number, backoff: NonNullable<ThrottlePolicy['backoff']>): number {
  if (failures < backoff.freeFailures) return 0;
  return Math.min(2 ** (failures - backoff.freeFailures), backoff.maxBlockSeconds);
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A value chosen by the row's key, for a statement over several keys: `case key when k1 then v1 … end`. */
function byKey(keys: readonly ThrottleKey[], value: (key: ThrottleKey) => string | number) {
  // A number is cast: PostgreSQL would otherwise type a parameter in a CASE as text.
  const typed = (v: string | number) => (typeof v === 'number' ? sql`cast(${v} as integer)` : sql`${v}`);
  return sql`case auth_throttle.key ${sql.join(
    keys.map((key) => sql`when ${key.key} then ${typed(value(key))}`),
    sql` `,
  )} end`;
}

/**
 * Reserves one attempt on every key in one atomic upsert, rows in the keys'
 * order (the order every statement here takes its row locks in, so two
 * requests sharing a key never wait on each other in a cycle). Returns the
 * window each admitted key's reservation was taken in; a refused key is absent.
 */
async function reserveKeys(db: Kysely<Schema>, keys: readonly ThrottleKey[], now: Date): Promise<Map<string, string>> {
  const nowIso = now.toISOString();
  // A window that started at or before its key's `windowEnded` is over: the attempt opens a new one.
  const windowEnded = byKey(keys, ({ policy }) => iso(now.getTime() - policy.windowSeconds * 1000));
  const result = await sql<{ key: string; window_started_at: string }>`
    insert into auth_throttle (key, window_started_at, reserved, failures, blocked_until)
    values ${sql.join(keys.map(({ key }) => sql`(${key}, ${nowIso}, 1, 0, null)`))}
    on conflict (key) do update set
      reserved = case when auth_throttle.window_started_at <= ${windowEnded} then 1 else auth_throttle.reserved + 1 end,
      window_started_at = case when auth_throttle.window_started_at <= ${windowEnded} then ${nowIso}
                               else auth_throttle.window_started_at end
    where (auth_throttle.blocked_until is null or auth_throttle.blocked_until <= ${nowIso})
      and (auth_throttle.window_started_at <= ${windowEnded} or auth_throttle.reserved < ${byKey(keys, ({ policy }) => policy.allowance)})
    returning key, window_started_at`.execute(db);
  return new Map(result.rows.map((row) => [row.key, row.window_started_at]));
}

async function retryAfterSeconds(db: Kysely<Schema>, { key, policy }: ThrottleKey, now: Date): Promise<number> {
  const row = await db.selectFrom('auth_throttle').selectAll().where('key', '=', key).executeTakeFirst();
  if (!row) return 1;
  const blockedMs = row.blocked_until ? new Date(row.blocked_until).getTime() - now.getTime() : 0;
  const windowMs =
    Number(row.reserved) >= policy.allowance
      ? new Date(row.window_started_at).getTime() + policy.windowSeconds * 1000 - now.getTime()
      : 0;
  return Math.max(1, Math.ceil(Math.max(blockedMs, windowMs) / 1000));
}

/**
 * Reserves one attempt on every key, in one statement. If any key refuses,
 * the reservations the others took are given back (so a blocked account does
 * not use up its address's allowance) and the first refusing key, in order,
 * says when to retry.
 */
export async function reserveAttempt(db: Kysely<Schema>, keys: ThrottleKey[], now: Date): Promise<Reservation> {
  const windows = await reserveKeys(db, keys, now);
  const reserved: ReservedKey[] = [];
  for (const key of keys) {
    const windowStartedAt = windows.get(key.key);
    if (windowStartedAt !== undefined) reserved.push({ ...key, windowStartedAt });
  }
  const refused = keys.find((key) => !windows.has(key.key));
  if (refused) {
    await settleAttempt(db, { admitted: true, keys: reserved }, 'unchecked', now);
    return { admitted: false, key: refused.key, retryAfterSeconds: await retryAfterSeconds(db, refused, now) };
  }
  return { admitted: true, keys: reserved };
}

/** The back-off of a key after one more failure, as one CASE over the failure count (dialect-neutral, atomic). */
function blockedUntilAfterFailure(backoff: NonNullable<ThrottlePolicy['backoff']>, now: Date) {
  const cases = [];
  for (let failures = backoff.freeFailures; ; failures++) {
    const seconds = blockSecondsAfter(failures, backoff);
    cases.push(sql`when auth_throttle.failures + 1 = ${failures} then ${iso(now.getTime() + seconds * 1000)}`);
    if (seconds >= backoff.maxBlockSeconds) {
      const longest = iso(now.getTime() + backoff.maxBlockSeconds * 1000);
      return sql`case ${sql.join(cases, sql` `)} when auth_throttle.failures + 1 > ${failures} then ${longest} else auth_throttle.blocked_until end`;
    }
  }
}

/** Records how an admitted attempt ended: a success or an unchecked attempt gives the reservation back. */
export async function settleAttempt(
  db: Kysely<Schema>,
  reservation: Reservation,
  outcome: AttemptOutcome,
  now: Date,
): Promise<void> {
  if (!reservation.admitted || reservation.keys.length === 0) return;
  if (outcome === 'failure') {
    for (const { key, policy } of reservation.keys) {
      // The reservation stays: a failure counts against the window.
      if (!policy.backoff) continue;
      await sql`update auth_throttle set failures = auth_throttle.failures + 1,
                  blocked_until = ${blockedUntilAfterFailure(policy.backoff, now)}
                where key = ${key}`.execute(db);
    }
    return;
  }
  // Every reservation given back in one upsert, rows in the keys' order (the lock order of reserveKeys): each
  // row's own window comes in as `excluded.window_started_at`, and it is given back only to that window.
  const { keys } = reservation;
  const cleared = outcome === 'success' ? keys.filter((key) => key.policy.backoff !== undefined).map((key) => key.key) : [];
  const clears = cleared.length > 0 ? sql`auth_throttle.key in (${sql.join(cleared)})` : sql`1 = 0`;
  await sql`
    insert into auth_throttle (key, window_started_at, reserved, failures, blocked_until)
    values ${sql.join(keys.map(({ key, windowStartedAt }) => sql`(${key}, ${windowStartedAt}, 0, 0, null)`))}
    on conflict (key) do update set
      reserved = case when auth_throttle.window_started_at = excluded.window_started_at and auth_throttle.reserved > 0
                      then auth_throttle.reserved - 1 else auth_throttle.reserved end,
      failures = case when ${clears} then 0 else auth_throttle.failures end,
      blocked_until = case when ${clears} then null else auth_throttle.blocked_until end`.execute(db);
}

/** The columns of an `auth_throttle` row that decide a refusal. */
export interface ThrottleRow {
  key: string;
  window_started_at: string;
  reserved: number | string;
  blocked_until: string | null;
}

/**
 * spec-notes I21: the first of `keys` (in order) that refuses an attempt now, with when to retry, or
 * null, from the keys' rows (the client authentication reads them with the client, in one statement
 * that writes nothing). A key refuses while its window holds `allowance` attempts counted against it,
 * or while it is blocked.
 */
export function refusalAmong(
  rows: readonly ThrottleRow[],
  keys: readonly ThrottleKey[],
  now: Date,
): { key: string; retryAfterSeconds: number } | null {
  const byKey = new Map(rows.map((row) => [row.key, row]));
  const nowMs = now.getTime();
  for (const { key, policy } of keys) {
    const row = byKey.get(key);
    if (!row) continue;
    const blockedMs = row.blocked_until ? new Date(row.blocked_until).getTime() - nowMs : 0;
    const windowEndsMs = new Date(row.window_started_at).getTime() + policy.windowSeconds * 1000;
    // The same window rule as reserveKeys: a window that started windowSeconds ago or earlier is over.
    const windowMs = Number(row.reserved) >= policy.allowance && windowEndsMs > nowMs ? windowEndsMs - nowMs : 0;
    if (blockedMs > 0 || windowMs > 0) {
      return { key, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(blockedMs, windowMs) / 1000)) };
    }
  }
  return null;
}

/**
 * spec-notes I21: one failed check counted on every key, in one upsert whose rows are in the keys'
 * order (the lock order of every statement here); a window that is over starts again with this
 * failure. For keys without a back-off (client secrets): the count is the window's, never cleared
 * by a success.
 */
export async function countFailure(db: Kysely<Schema>, keys: readonly ThrottleKey[], now: Date): Promise<void> {
  const nowIso = now.toISOString();
  const windowEnded = byKey(keys, ({ policy }) => iso(now.getTime() - policy.windowSeconds * 1000));
  await sql`
    insert into auth_throttle (key, window_started_at, reserved, failures, blocked_until)
    values ${sql.join(keys.map(({ key }) => sql`(${key}, ${nowIso}, 1, 0, null)`))}
    on conflict (key) do update set
      reserved = case when auth_throttle.window_started_at <= ${windowEnded} then 1 else auth_throttle.reserved + 1 end,
      window_started_at = case when auth_throttle.window_started_at <= ${windowEnded} then ${nowIso}
                               else auth_throttle.window_started_at end`.execute(db);
}
