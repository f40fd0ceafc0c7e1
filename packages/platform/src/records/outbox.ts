import { type Topic, type WebhookChangeStatus, webhookMessage } from '@feira/contract';
import type { Insertable, Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import { timeOrderedUuid } from '../core/uuid-v7.js';
import type { Database } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import type { RecordTables } from './record-tables.js';

export type ChangeStatus = WebhookChangeStatus;

export interface RecordChange {
  tenantId: string;
  /** A spec topic, or the topic of a kind registered beside the platform's (D92). */
  topic: Topic | (string & {});
  status: ChangeStatus;
  recordId: string;
  /** The record's read path, e.g. `/seller/v0/tickets/<id>` (spec-notes W7). */
  resource: string;
}

/** What appending an event needs. */
export interface OutboxDeps {
  clock: Clock;
  random: Random;
  /**
   * Its outbox signal wakes the dispatcher at once (else it would find the
   * event at its next poll); its dialect lets a record insert and its event go
   * to PostgreSQL as one statement (record-write.ts). Required, so that no
   * write path forgets it: the platform context (`app.platform`) has it.
   */
  database: Pick<Database, 'outboxSignal' | 'dialect'>;
}

/** The outbox row of a record change: the webhook message serialized once, in the spec's shape, delivered byte for byte. */
export function outboxEventRow(
  change: RecordChange,
  deps: Pick<OutboxDeps, 'clock' | 'random'>,
): Insertable<RecordTables['outbox_events']> {
  const createdAt = deps.clock.now();
  return {
    // Time-ordered: appended to the outbox's id index, and its deliveries' ids (their time is the event's) to theirs.
    id: timeOrderedUuid(deps.random, createdAt),
    tenant_id: change.tenantId,
    topic: change.topic,
    status: change.status,
    record_id: change.recordId,
    resource: change.resource,
    body: JSON.stringify(webhookMessage(change)),
    created_at: createdAt.toISOString(),
    dispatched_at: null,
  };
}

/**
 * Appends the webhook message for a record change to the outbox. Call it with
 * the transaction that changes the record (spec-notes W6): the event commits
 * with the change or not at all. Returns the event's id. Whoever commits that
 * transaction calls `deps.database.outboxSignal.notify()` after the commit
 * (`inTransaction` in record-write.ts does), or dispatchers find the event
 * only at their next poll.
 */
export async function appendEvent(trx: Kysely<Schema>, change: RecordChange, deps: OutboxDeps): Promise<string> {
  const row = outboxEventRow(change, deps);
  await trx.insertInto('outbox_events').values(row).execute();
  return row.id;
}

/**
 * Appends an event that no fan-out picks up (dispatched when written): a test
 * event the console sends to one subscription (D66), whose one delivery the
 * caller queues itself. Returns the row.
 */
export async function appendUndispatchedTestEvent(
  db: Kysely<Schema>,
  change: RecordChange,
  deps: Pick<OutboxDeps, 'clock' | 'random'>,
): Promise<{ id: string; created_at: string; topic: string }> {
  const row = outboxEventRow(change, deps);
  await db
    .insertInto('outbox_events')
    .values({ ...row, dispatched_at: row.created_at })
    .execute();
  return { id: row.id, created_at: row.created_at, topic: row.topic };
}

/**
 * The events of a window, newest first, at most `limit`: those created since
 * `sinceIso`, those still waiting for fan-out, and those fanned out since (the
 * operator console's health charts count the work waiting at each minute).
 */
export function outboxEventsInWindow(
  db: Kysely<Schema>,
  sinceIso: string,
  limit: number,
): Promise<Array<{ created_at: string; dispatched_at: string | null }>> {
  return db
    .selectFrom('outbox_events')
    .select(['created_at', 'dispatched_at'])
    .where((eb) =>
      eb.or([eb('created_at', '>=', sinceIso), eb('dispatched_at', 'is', null), eb('dispatched_at', '>=', sinceIso)]),
    )
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}
