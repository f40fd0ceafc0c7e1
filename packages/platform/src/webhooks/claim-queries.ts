import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DialectName } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import type { Schema } from '../storage/schema.js';

/**
 * The claims (spec-notes W6). Each is a single `UPDATE … WHERE key IN (SELECT
 * … LIMIT n) RETURNING`, its inner SELECT locked for the claim
 * (dialectAdapter().lockForClaim: on PostgreSQL `FOR UPDATE SKIP LOCKED`, so
 * concurrent dispatchers each take different rows without waiting on one
 * another; SQLite has one writer at a time, so the single statement is
 * already atomic).
 */
function lockForClaim<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  dialect: DialectName,
): SelectQueryBuilder<DB, TB, O> {
  return dialectAdapter(dialect).lockForClaim(query);
}

export interface ClaimedEvent {
  seq: number;
  id: string;
  tenant_id: string;
  topic: string;
  body: string;
  created_at: string;
}

/**
 * SQLite's fan-out: takes up to `limit` undispatched outbox events and marks
 * them dispatched. Call it inside the transaction that also writes their
 * deliveries: if that transaction fails, the events are undispatched again and
 * nothing is lost. PostgreSQL's fan-out makes the same claim, with `FOR UPDATE
 * SKIP LOCKED`, inside its one statement (fan-out.ts).
 */
export async function claimOutboxEvents(trx: Kysely<Schema>, limit: number, nowIso: string): Promise<ClaimedEvent[]> {
  const pending = trx.selectFrom('outbox_events').select('seq').where('dispatched_at', 'is', null).orderBy('seq').limit(limit);
  return trx
    .updateTable('outbox_events')
    .set({ dispatched_at: nowIso })
    .where('seq', 'in', pending)
    .returning(['seq', 'id', 'tenant_id', 'topic', 'body', 'created_at'])
    .execute();
}

export interface ClaimedDelivery {
  id: string;
  event_id: string;
  subscription_id: string;
  attempts: number;
  fence: number;
}

/**
 * Leases up to `limit` due deliveries to `worker` until `leaseUntilIso`, and
 * increments each one's fencing token. `which` picks the deliveries:
 *
 * - `unleased`: due and held by nobody (retries, fan-out beyond a worker's
 *   room, released leases). Their partial index (migration 0015) holds only
 *   such rows: a delivery the fan-out leased and sent never enters it, so the
 *   claim a dispatcher runs every poll does not walk the row versions that
 *   every successful delivery leaves behind (on PostgreSQL an empty claim
 *   otherwise grew slower after every backlog: docs/decisions.md D11).
 * - `expired`: held under a lease that ran out (its worker died or stalled).
 *   Rarer, and looked for less often (once per lease renewal period).
 *
 * `skipSubscriptions` leaves out endpoints this worker already has enough
 * requests in flight to. The state is a literal, not a parameter, so that
 * SQLite matches the partial indexes.
 */
export async function claimDueDeliveries(
  db: Kysely<Schema>,
  dialect: DialectName,
  options: {
    worker: string;
    limit: number;
    nowIso: string;
    leaseUntilIso: string;
    skipSubscriptions: readonly string[];
    which: 'unleased' | 'expired';
  },
): Promise<ClaimedDelivery[]> {
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('state', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', options.nowIso);
  due =
    options.which === 'unleased'
      ? due.where('lease_until', 'is', null)
      : due.where('lease_until', 'is not', null).where('lease_until', '<=', options.nowIso);
  if (options.skipSubscriptions.length > 0) due = due.where('subscription_id', 'not in', options.skipSubscriptions);
  const claimable = lockForClaim(due.orderBy('next_attempt_at').limit(options.limit), dialect);
  return db
    .updateTable('webhook_deliveries')
    .set({
      lease_owner: options.worker,
      lease_until: options.leaseUntilIso,
      fence: sql<number>`fence + 1`,
    })
    .where('id', 'in', claimable)
    .returning(['id', 'event_id', 'subscription_id', 'attempts', 'fence'])
    .execute();
}
