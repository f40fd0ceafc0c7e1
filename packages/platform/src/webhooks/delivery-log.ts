import { type Kysely, type Selectable, sql } from 'kysely';
import type { Random } from '../core/random.js';
import type { Database, DialectName } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import type { Schema } from '../storage/schema.js';
import { multiRowInsert, StatementShapes } from '../storage/statement-shapes.js';
import type { ClaimedDelivery } from './claim-queries.js';
import type { AttemptResult } from './delivery-request.js';
import { alertOf, queueAlert } from './operational-alerts.js';
import { DISABLE_AFTER_FAILING_MS, nextAttemptAt } from './retry-schedule.js';
import type { WebhookTables } from './webhook-tables.js';

export interface FinishedAttempt {
  claim: ClaimedDelivery;
  worker: string;
  startedAt: Date;
  finishedAt: Date;
  result: AttemptResult;
}

export interface SkippedDelivery {
  claim: ClaimedDelivery;
  /** Why no request was made (e.g. the subscription is disabled); the delivery becomes dead, redeliverable. */
  reason: string;
  at: Date;
}

export type RecordedOutcome = 'succeeded' | 'failed' | 'dead' | 'stale';

/**
 * Writes finished attempts to the delivery log in one transaction (batched
 * for throughput). Every write is fenced: a worker whose lease was taken
 * over (its fencing token is no longer the row's) records nothing, so a
 * stalled worker cannot overwrite a newer attempt's result. On PostgreSQL
 * the transaction does not wait for the WAL flush (storage/async-commit.ts).
 */
export async function recordAttempts(
  database: Database,
  finished: readonly FinishedAttempt[],
  skipped: readonly SkippedDelivery[],
  random: Random,
  released: readonly ClaimedDelivery[] = [],
): Promise<RecordedOutcome[]> {
  if (finished.length === 0 && skipped.length === 0 && released.length === 0) return [];
  return database.db.transaction().execute(async (trx) => {
    // Results undone by a database crash are redone: the deliveries are sent again once their lease runs out.
    await dialectAdapter(database).relaxCommitDurability(trx);
    const outcomes: RecordedOutcome[] = [];
    const attemptRows: AttemptRow[] = [];
    const succeededSubscriptions = new Set<string>();
    const failed: Array<{ subscriptionId: string; at: string }> = [];
    const applied = await applySuccesses(trx, database.dialect, finished);
    for (const f of finished) {
      const attempt = f.claim.attempts + 1;
      // Successes were written above, in batches; a failure is written here with its own next attempt.
      const { ok } = f.result;
      const next = ok ? null : nextAttemptAt(attempt, f.finishedAt, random, f.result.retryAfterMs);
      const updated = ok
        ? { numUpdatedRows: applied.has(f.claim.id) ? 1n : 0n }
        : await trx
            .updateTable('webhook_deliveries')
            .set({
              state: next ? 'pending' : 'dead',
              attempts: attempt,
              attempts_total: sql<number>`coalesce(attempts_total, attempts) + 1`,
              next_attempt_at: next ? next.toISOString() : null,
              lease_owner: null,
              lease_until: null,
              last_status_code: f.result.statusCode,
              last_error: f.result.error,
              updated_at: f.finishedAt.toISOString(),
            })
            .where('id', '=', f.claim.id)
            .where('fence', '=', f.claim.fence)
            .executeTakeFirst();
      const stale = Number(updated.numUpdatedRows) === 0;
      outcomes.push(stale ? 'stale' : ok ? 'succeeded' : next ? 'failed' : 'dead');
      // The attempt happened, so it is logged even when its lease was lost; only the delivery's state is fenced.
      attemptRows.push({
        delivery_id: f.claim.id,
        attempt,
        fence: f.claim.fence,
        worker: f.worker,
        outcome: ok ? 'succeeded' : 'failed',
        status_code: f.result.statusCode,
        duration_ms: f.result.durationMs,
        error: stale ? `lease lost before the result was recorded${f.result.error ? `; ${f.result.error}` : ''}` : f.result.error,
        response_body: f.result.responseBody,
        request_headers: JSON.stringify(f.result.requestHeaders),
        response_headers: f.result.responseHeaders ? JSON.stringify(f.result.responseHeaders) : null,
        next_attempt_at: stale || !next ? null : next.toISOString(),
        started_at: f.startedAt.toISOString(),
      });
      if (stale) continue;
      if (ok) succeededSubscriptions.add(f.claim.subscription_id);
      else failed.push({ subscriptionId: f.claim.subscription_id, at: f.finishedAt.toISOString() });
    }
    for (const s of skipped) {
      const updated = await trx
        .updateTable('webhook_deliveries')
        // Its death is its last change: the delivery log's retention counts from updated_at (delivery-retention.ts).
        .set({
          state: 'dead',
          next_attempt_at: null,
          lease_owner: null,
          lease_until: null,
          last_error: s.reason,
          updated_at: s.at.toISOString(),
        })
        .where('id', '=', s.claim.id)
        .where('fence', '=', s.claim.fence)
        .executeTakeFirst();
      outcomes.push(Number(updated.numUpdatedRows) === 0 ? 'stale' : 'dead');
    }
    // Claimed but never sent: the lease is given back so any worker can take the delivery at once.
    for (const claim of released) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ lease_owner: null, lease_until: null })
        .where('id', '=', claim.id)
        .where('fence', '=', claim.fence)
        .execute();
    }
    // A stale row may be one whose delivery was deleted meanwhile (its app or seller was):
    // its attempt has nothing left to be logged against.
    const staleIds = attemptRows.filter((_, i) => outcomes[i] === 'stale').map((row) => row.delivery_id);
    if (staleIds.length > 0) {
      const alive = new Set(
        (await trx.selectFrom('webhook_deliveries').select('id').where('id', 'in', staleIds).execute()).map((r) => r.id),
      );
      for (let i = attemptRows.length - 1; i >= 0; i--) {
        if (outcomes[i] === 'stale' && !alive.has(attemptRows[i]?.delivery_id as string)) attemptRows.splice(i, 1);
      }
    }
    for (let i = 0; i < attemptRows.length; i += 500) {
      const chunk = attemptRows.slice(i, i + 500);
      const values: unknown[] = [];
      for (const row of chunk) pushAttemptValues(values, row);
      await trx.executeQuery(INSERT_ATTEMPTS.query(trx, database.dialect, chunk.length, values));
    }
    // A success ends the subscription's failure run (W4).
    if (succeededSubscriptions.size > 0) {
      await trx
        .updateTable('webhook_subscriptions')
        .set({ failing_since: null, failure_streak: 0 })
        .where('id', 'in', [...succeededSubscriptions])
        .where('failure_streak', '>', 0)
        .execute();
    }
    // W4: a subscription whose failures have run for 5 days is disabled; a new signup re-enables it.
    for (const f of failed) {
      const cutoff = new Date(Date.parse(f.at) - DISABLE_AFTER_FAILING_MS).toISOString();
      const after = await trx
        .updateTable('webhook_subscriptions')
        .set({
          failure_streak: sql<number>`failure_streak + 1`,
          failing_since: sql<string>`coalesce(failing_since, ${f.at})`,
          state: sql<
            'active' | 'disabled'
          >`case when failing_since is not null and failing_since <= ${cutoff} then 'disabled' else state end`,
          disabled_at: sql<
            string | null
          >`case when state = 'active' and failing_since is not null and failing_since <= ${cutoff} then ${f.at} else disabled_at end`,
        })
        .where('id', '=', f.subscriptionId)
        .returning(['id', 'tenant_id', 'client_id', 'topic', 'url', 'state', 'failure_streak', 'failing_since', 'disabled_at'])
        .executeTakeFirst();
      // The seller's own address hears of a run reaching the streak, or of the W4 disabling (D141).
      const alert = after ? alertOf(after, f.at) : null;
      if (after && alert) await queueAlert(trx, random, alert, after, f.at);
    }
    return outcomes;
  });
}

/** One row of the attempt log, as recorded (its `seq` is the database's). */
type AttemptRow = Omit<Selectable<WebhookTables['webhook_delivery_attempts']>, 'seq'>;

/** The attempt log's columns, in the order its batched INSERT binds them… */
const ATTEMPT_COLUMNS = [
  'delivery_id',
  'attempt',
  'fence',
  'worker',
  'outcome',
  'status_code',
  'duration_ms',
  'error',
  'response_body',
  'request_headers',
  'response_headers',
  'next_attempt_at',
  'started_at',
] as const satisfies ReadonlyArray<keyof AttemptRow>;

/** …and a row's values in that order, by position (a look-up by name per column was measurable: docs/decisions.md D12). */
function pushAttemptValues(values: unknown[], row: AttemptRow): void {
  values.push(
    row.delivery_id,
    row.attempt,
    row.fence,
    row.worker,
    row.outcome,
    row.status_code,
    row.duration_ms,
    row.error,
    row.response_body,
    row.request_headers,
    row.response_headers,
    row.next_attempt_at,
    row.started_at,
  );
}

const INSERT_ATTEMPTS = multiRowInsert<Schema>('attempt log insert', 'webhook_delivery_attempts', ATTEMPT_COLUMNS);

/** Binds the status code and time (3 values), then each row's id, then each row's `id:fence`. */
const MARK_SUCCEEDED = new StatementShapes<Schema>(
  'success update',
  (db, rows) =>
    db
      .updateTable('webhook_deliveries')
      .set({
        state: sql.lit('succeeded'),
        attempts: sql<number>`attempts + 1`,
        attempts_total: sql<number>`coalesce(attempts_total, attempts) + 1`,
        next_attempt_at: sql.lit(null),
        lease_owner: sql.lit(null),
        lease_until: sql.lit(null),
        last_status_code: 0,
        last_error: sql.lit(null),
        updated_at: '',
        delivered_at: '',
      })
      .where(
        'id',
        'in',
        Array.from({ length: rows }, () => ''),
      )
      .where(
        sql<string>`id || ':' || fence`,
        'in',
        Array.from({ length: rows }, () => ''),
      )
      .returning('id')
      .compile(),
  2,
  3,
);

/**
 * Successes are the bulk of the traffic: they are written with one fenced
 * UPDATE per status code and 500 rows (`id IN (…)` finds the rows by key, the
 * `id:fence` pair keeps a stale worker out). Returns the ids updated.
 */
async function applySuccesses(
  trx: Kysely<Schema>,
  dialect: DialectName,
  finished: readonly FinishedAttempt[],
): Promise<Set<string>> {
  const applied = new Set<string>();
  const byStatus = new Map<number, FinishedAttempt[]>();
  for (const f of finished) {
    if (!f.result.ok) continue;
    const code = f.result.statusCode ?? 200;
    const group = byStatus.get(code);
    if (group) group.push(f);
    else byStatus.set(code, [f]);
  }
  for (const [statusCode, group] of byStatus) {
    for (let i = 0; i < group.length; i += 500) {
      const chunk = group.slice(i, i + 500);
      const at = new Date(Math.max(...chunk.map((f) => f.finishedAt.getTime()))).toISOString();
      const values: unknown[] = [statusCode, at, at];
      for (const f of chunk) values.push(f.claim.id);
      for (const f of chunk) values.push(`${f.claim.id}:${f.claim.fence}`);
      const { rows } = await trx.executeQuery<{ id: string }>(MARK_SUCCEEDED.query(trx, dialect, chunk.length, values));
      for (const row of rows) applied.add(row.id);
    }
  }
  return applied;
}
