import { CompiledQuery, type Kysely, sql } from 'kysely';
import { BoundedCache } from '../core/bounded-cache.js';
import type { Database } from '../storage/database.js';
import { runNamed } from '../storage/named-statement.js';
import type { Schema } from '../storage/schema.js';

/** A token bucket: refilled at `requestsPerSecond`, holding at most `burst` requests (spec-notes I20). */
export interface ApiRateLimit {
  requestsPerSecond: number;
  burst: number;
}

/** What one request took from its bucket. */
export interface ApiRateDecision {
  admitted: boolean;
  /** The limit the bucket was taken under: the app's own, else the platform's default. */
  limit: ApiRateLimit;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Refused: whole seconds until one request would be admitted (at least 1). */
  retryAfterSeconds: number;
  /**
   * Refused, and not the first refusal this process answered since the bucket last admitted: the
   * caller did not wait for the `Retry-After` it was given (an upload's connection is then closed).
   */
  repeated?: boolean;
}

/** Whose bucket a request takes from: the app and the store it acts for (or `seller:<id>` without one). */
export interface ApiRateBucketKey {
  clientId: string;
  bucket: string;
}

/**
 * Takes one request from the (app, store) bucket, in ONE statement: the app's
 * limit is read from its `clients` row (else the default) inside the upsert,
 * and the bucket is tested and advanced by GCRA (the generic cell rate
 * algorithm, a token bucket kept as one timestamp, its theoretical arrival
 * time `tat`). A request is admitted when `max(tat, now) - now` is at most
 * `(burst - 1)` emission intervals (1000 / requests_per_second ms); it then
 * moves `tat` to `max(tat, now)` plus one interval. The test and the move
 * are one `INSERT … ON CONFLICT DO UPDATE` (SQLite ≥ 3.35 and PostgreSQL): the
 * row is locked for the update, so N processes taking from one bucket at once
 * admit exactly what the bucket holds; no read-modify-write crosses a round trip.
 * A refused request still writes the row (`admitted = 0`, `tat` unchanged): one
 * statement answers both ways, and RETURNING says which. It is on the path of
 * every seller API request, so its text is compiled once per handle and only
 * its values are bound (storage/statement-shapes.ts does the same for batches).
 * A bucket this process saw refuse, or saw admit its last request, answers
 * from memory until it admits again (no statement), and then one request asks
 * for all (see
 * {@link rememberedApiRefusal}): a flood past its limit costs the database
 * nothing more. Callers ask {@link rememberedApiRefusal} first.
 */
export async function takeApiRequest(
  database: Pick<Database, 'db' | 'pgPool'>,
  key: ApiRateBucketKey,
  defaults: ApiRateLimit,
  now: Date,
): Promise<ApiRateDecision> {
  const taken = await take(database, key, null, defaults, now);
  if (!taken) throw new Error('The rate-limit upsert returned no row');
  return taken;
}

/**
 * {@link takeApiRequest} for a call made with an access token, in the same
 * ONE statement: the bucket is taken only while the token's family (its
 * grant) is live, so the revocation read every API call owes (spec-notes I6)
 * costs no round trip of its own (D162). Null when the family is revoked or
 * unknown: nothing was taken, and the call is refused as revoked.
 */
export async function takeApiRequestOfLiveFamily(
  database: Pick<Database, 'db' | 'pgPool'>,
  key: ApiRateBucketKey,
  familyId: string,
  defaults: ApiRateLimit,
  now: Date,
): Promise<ApiRateDecision | null> {
  return take(database, key, familyId, defaults, now);
}

async function take(
  database: Pick<Database, 'db' | 'pgPool'>,
  key: ApiRateBucketKey,
  familyId: string | null,
  defaults: ApiRateLimit,
  now: Date,
): Promise<ApiRateDecision | null> {
  const refused = refusedBuckets(database.db);
  const bucketKey = bucketKeyOf(key);
  const values: Record<Slot, unknown> = {
    clientId: key.clientId,
    bucket: key.bucket,
    now: now.getTime(),
    defaultRps: defaults.requestsPerSecond,
    defaultBurst: defaults.burst,
    familyId,
  };
  const variant = familyId === null ? 'any' : 'liveFamily';
  const { text, slots } = compiledTake(database.db, variant);
  const query = CompiledQuery.raw(
    text,
    slots.map((slot) => values[slot]),
  ) as CompiledQuery<BucketRow>;
  // On PostgreSQL a named statement: each connection parses and plans it once (storage/named-statement.ts).
  const rows = await runNamed(database, TAKE_STATEMENTS[variant], query);
  const row = rows[0];
  const asked = refused.get(bucketKey);
  if (!row) {
    // The family is revoked: nothing taken, and the requests that waited on this one ask for themselves.
    asked?.probe?.settle();
    return null;
  }
  const taken = decision(row, now.getTime());
  // When the bucket admits next, from its row: refused, or admitted with nothing left, it is later than now.
  const interval = 1000 / Number(row.requests_per_second);
  const admitsAtMs = Number(row.tat) - (Number(row.burst) - 1) * interval;
  if (admitsAtMs > now.getTime()) refused.set(bucketKey, { row, admitsAtMs, probe: null, refusals: taken.admitted ? 0 : 1 });
  else if (asked) refused.delete(bucketKey);
  // The requests of this process that waited for this answer ask again: remembered refused, or free to ask.
  asked?.probe?.settle();
  return taken;
}

function bucketKeyOf(key: ApiRateBucketKey): string {
  return `${key.clientId}\u0000${key.bucket}`;
}

/**
 * The refusal this process remembers for the bucket, answered from memory
 * without a statement; null when the bucket may admit (then only
 * {@link takeApiRequest} decides). Callers ask it before any other database
 * work of a request (the access token's revocation read, a store lookup), so a
 * client flooding past its limit costs the database nothing at all: a refusal
 * needs no more than who the bucket is, and admitting still runs every check.
 *
 * When a remembered refusal runs out, ONE request of this process asks the
 * database (the probe); the others of that bucket wait for its answer rather
 * than all asking at once, then are refused from memory again or ask in turn.
 * A flood so costs a bounded number of statements a second (about two per
 * emission interval), not one per request arriving during a round trip. A
 * probe that never reaches {@link takeApiRequest} (its token revoked, a
 * statement failed) frees the waiters after {@link PROBE_WAIT_MS}.
 */
export async function rememberedApiRefusal(
  database: Pick<Database, 'db'>,
  key: ApiRateBucketKey,
  now: () => Date,
): Promise<ApiRateDecision | null> {
  const refused = refusedBuckets(database.db);
  const bucketKey = bucketKeyOf(key);
  for (;;) {
    const known = refused.get(bucketKey);
    if (!known) return null;
    const nowMs = now().getTime();
    if (nowMs < known.admitsAtMs) {
      known.refusals += 1;
      return { ...decision({ ...known.row, admitted: 0 }, nowMs), repeated: known.refusals > 1 };
    }
    if (!known.probe) {
      known.probe = probeOf(known);
      return null;
    }
    await known.probe.answered;
  }
}

/** How long the requests waiting on a probe wait at most before one of them asks in its place. */
const PROBE_WAIT_MS = 1_000;

/** One request asking the database whether a refused bucket admits again; the others await `answered`. */
interface Probe {
  answered: Promise<void>;
  settle(): void;
}

function probeOf(known: RefusedBucket): Probe {
  let settle = () => {};
  const answered = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const probe: Probe = {
    answered,
    settle() {
      clearTimeout(timer);
      if (known.probe === probe) known.probe = null;
      settle();
    },
  };
  const timer = setTimeout(() => probe.settle(), PROBE_WAIT_MS);
  timer.unref();
  return probe;
}

/**
 * Buckets this process saw empty (a refusal, or an admission that took the
 * last request), with the moment each admits again, so a flood past its limit
 * costs no statement until then. Exact: a refusal does not move a bucket, and
 * other processes only move its `tat` later, so no bucket admits sooner than
 * this process computed, unless the operator raises
 * the app's limit: {@link forgetRefusedBuckets} clears this process's memory at
 * once, and another process's lasts at most one emission interval
 * (1 / requests_per_second), the longest a refused bucket waits.
 */
const refusedByHandle = new WeakMap<Kysely<Schema>, BoundedCache<string, RefusedBucket>>();

/** A bucket remembered empty: the row that said so, when it admits again, and the request asking meanwhile. */
interface RefusedBucket {
  row: BucketRow;
  admitsAtMs: number;
  probe: Probe | null;
  /** Refusals answered since the bucket last admitted. */
  refusals: number;
}
/** Buckets remembered per process: beyond, the oldest is forgotten and asks the database again. */
const REFUSED_BUCKETS_KEPT = 10_000;

function refusedBuckets(db: Kysely<Schema>): BoundedCache<string, RefusedBucket> {
  let refused = refusedByHandle.get(db);
  if (!refused) {
    refused = new BoundedCache(REFUSED_BUCKETS_KEPT);
    refusedByHandle.set(db, refused);
  }
  return refused;
}

/** An app's limit changed: this process asks the database again for every bucket it saw refuse. */
export function forgetRefusedBuckets(db: Kysely<Schema>): void {
  const refused = refusedByHandle.get(db);
  if (!refused) return;
  const probes = [...refused.values()].flatMap((known) => (known.probe ? [known.probe] : []));
  refused.clear();
  for (const probe of probes) probe.settle();
}

type Slot = 'clientId' | 'bucket' | 'now' | 'defaultRps' | 'defaultBurst' | 'familyId';
/** The statement taking from any bucket, and the one taking only while an access token's family is live. */
type Variant = 'any' | 'liveFamily';
type BucketRow = { tat: number; admitted: number; requests_per_second: number; burst: number };

const TAKE_STATEMENTS: Record<Variant, string> = {
  any: 'feira_api_rate_take',
  liveFamily: 'feira_api_rate_take_live_family',
};

/** Marks a value's place while the statement is compiled: the text is built once and only values change. */
class Placeholder {
  constructor(readonly slot: Slot) {}
}

/** The statement's text for this handle's dialect, compiled once, and which value each parameter is. */
const compiledTexts = new WeakMap<Kysely<Schema>, Partial<Record<Variant, { text: string; slots: Slot[] }>>>();

function compiledTake(db: Kysely<Schema>, variant: Variant): { text: string; slots: Slot[] } {
  let texts = compiledTexts.get(db);
  if (!texts) {
    texts = {};
    compiledTexts.set(db, texts);
  }
  let compiled = texts[variant];
  if (!compiled) {
    const query = takeStatement(variant, (slot) => new Placeholder(slot)).compile(db);
    const slots = query.parameters.map((parameter) => {
      if (!(parameter instanceof Placeholder)) throw new Error('The rate-limit statement bound a value of its own');
      return parameter.slot;
    });
    compiled = { text: query.sql, slots };
    texts[variant] = compiled;
  }
  return compiled;
}

function takeStatement(variant: Variant, value: (slot: Slot) => Placeholder) {
  const nowMs = sql`cast(${value('now')} as double precision)`;
  const interval = sql`(1000.0 / excluded.requests_per_second)`;
  // max(tat, now) spelled as CASE: SQLite's max() and PostgreSQL's greatest() differ.
  const start = sql`(case when api_rate_buckets.tat > ${nowMs} then api_rate_buckets.tat else ${nowMs} end)`;
  const fits = sql`${start} - ${nowMs} <= (excluded.burst - 1) * ${interval}`;
  // No row to insert or update, and so none returned, when the token's family is revoked (spec-notes I6).
  const admissible =
    variant === 'any'
      ? sql`true`
      : sql`exists (select 1 from token_families where token_families.id = ${value('familyId')} and token_families.revoked_at is null)`;
  return sql<BucketRow>`
    insert into api_rate_buckets (client_id, bucket, tat, requests_per_second, burst, admitted)
    select ${value('clientId')}, ${value('bucket')}, ${nowMs} + 1000.0 / limits.rps, limits.rps, limits.burst, 1
    from (
      select coalesce(clients.rate_limit_per_second, cast(${value('defaultRps')} as integer)) as rps,
             coalesce(clients.rate_limit_burst, cast(${value('defaultBurst')} as integer)) as burst
      from (select 1 as one) as here left join clients on clients.id = ${value('clientId')}
    ) as limits
    where ${admissible}
    on conflict (client_id, bucket) do update set
      tat = case when ${fits} then ${start} + ${interval} else api_rate_buckets.tat end,
      admitted = case when ${fits} then 1 else 0 end,
      requests_per_second = excluded.requests_per_second,
      burst = excluded.burst
    returning tat, admitted, requests_per_second, burst`;
}

/** What the row the statement returned means for this request, at `nowMs`. */
function decision(
  row: { tat: number; admitted: number; requests_per_second: number; burst: number },
  nowMs: number,
): ApiRateDecision {
  const limit = { requestsPerSecond: Number(row.requests_per_second), burst: Number(row.burst) };
  const interval = 1000 / limit.requestsPerSecond;
  const ahead = Math.max(Number(row.tat) - nowMs, 0);
  const admitted = Number(row.admitted) === 1;
  // A small tolerance: tat is a sum of floating-point intervals.
  const remaining = Math.max(0, Math.floor(limit.burst - ahead / interval + 1e-9));
  const untilNext = ahead - (limit.burst - 1) * interval;
  return {
    admitted,
    limit,
    remaining: admitted ? remaining : 0,
    resetSeconds: Math.ceil(ahead / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(untilNext / 1000)),
  };
}
