import { type Kysely, sql } from 'kysely';
import { uuidV7TimePrefix } from '../core/uuid-v7.js';
import { deleteBeforeBatch, type RetentionRule } from '../storage/retention-sweeper.js';
import type { Schema } from '../storage/schema.js';

const HOUR_MS = 3_600_000;

/**
 * The delivery log's retention (docs/deploy.md "Retention"):
 *
 * - A delivery, with its attempts, `deliveryDays` after it succeeded or
 *   died (its `updated_at`). A pending one is never swept: it may still be
 *   sent (spec-notes W4); a dead one is redeliverable until it goes.
 * - An outbox event once it was fanned out, is at least `outboxHours` old,
 *   and no delivery of it is left: a delivery sends its event's body, on
 *   every attempt and redelivery (spec-notes W6). An event never fanned out
 *   stays, whatever its age.
 * - An operational alert (operational-alerts.ts) `deliveryDays` after it was
 *   made, once it was sent or given up; one still waiting for its next
 *   attempt stays.
 *
 * Neither table has an index on time: their keys are time-ordered (a
 * delivery's id is a UUID v7 of its event's time, delivery-id.ts; an event's
 * seq a sequence), so each batch walks `limit` rows of the primary key from
 * where the previous one stopped, and a row kept (a delivery retried for
 * days, redelivered) is read once a pass. No write of the queue pays for an
 * index of the sweep's.
 */
export function deliveryRetentionRules(
  db: Kysely<Schema>,
  policy: { deliveryDays: number; outboxHours: number },
): RetentionRule[] {
  const rules: RetentionRule[] = [];
  if (policy.deliveryDays > 0) {
    rules.push({
      name: 'webhook_deliveries',
      tables: ['webhook_deliveries', 'webhook_delivery_attempts'],
      sweep: (batch) => sweepDeliveries(db, { ...batch, cutoffMs: batch.now.getTime() - policy.deliveryDays * 24 * HOUR_MS }),
    });
  }
  if (policy.deliveryDays > 0) {
    rules.push({
      name: 'store_alerts',
      sweep: (batch) =>
        deleteBeforeBatch(db, {
          table: 'store_alerts',
          key: 'id',
          time: 'created_at',
          cutoffIso: new Date(batch.now.getTime() - policy.deliveryDays * 24 * HOUR_MS).toISOString(),
          limit: batch.limit,
          also: sql`next_attempt_at is null`,
        }),
    });
  }
  if (policy.outboxHours > 0) {
    rules.push({
      name: 'outbox_events',
      sweep: (batch) => sweepEvents(db, { ...batch, cutoffMs: batch.now.getTime() - policy.outboxHours * HOUR_MS }),
    });
  }
  return rules;
}

type Batch = { limit: number; after: string | null; cutoffMs: number };

async function sweepDeliveries(db: Kysely<Schema>, batch: Batch): Promise<{ deleted: number; next: string | null }> {
  const cutoffIso = new Date(batch.cutoffMs).toISOString();
  // A delivery finished before the cutoff belongs to an event of before it, so its id sorts below this.
  const scan = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'state', 'updated_at'])
    .where('id', '>', batch.after ?? '')
    .where('id', '<', uuidV7TimePrefix(batch.cutoffMs))
    .orderBy('id')
    .limit(batch.limit);
  const scanned = await scan.execute();
  const done = scanned.filter((row) => row.state !== 'pending' && row.updated_at < cutoffIso).map((row) => row.id);
  let deleted = 0;
  if (done.length > 0) {
    // State and time checked again: a delivery redelivered since the read above is pending and stays. Its
    // attempts go with it (ON DELETE CASCADE, found through their (delivery_id, fence) index).
    const result = await db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', done)
      .where('state', 'in', ['succeeded', 'dead'])
      .where('updated_at', '<', cutoffIso)
      .executeTakeFirst();
    deleted = Number(result.numDeletedRows);
  }
  const last = scanned[scanned.length - 1];
  return { deleted, next: scanned.length < batch.limit || !last ? null : last.id };
}

async function sweepEvents(db: Kysely<Schema>, batch: Batch): Promise<{ deleted: number; next: string | null }> {
  const scanned = await db
    .selectFrom('outbox_events')
    .select(['seq', 'id', 'created_at', 'dispatched_at'])
    .where('seq', '>', Number(batch.after ?? 0))
    .orderBy('seq')
    .limit(batch.limit)
    .execute();
  const cutoffIso = new Date(batch.cutoffMs).toISOString();
  // Events are appended in time order: the first one too young ends the pass.
  const youngAt = scanned.findIndex((event) => event.created_at >= cutoffIso);
  const old = youngAt === -1 ? scanned : scanned.slice(0, youngAt);
  const candidates = old.filter((event) => event.dispatched_at !== null);
  let deleted = 0;
  if (candidates.length > 0) {
    const times = candidates.map((event) => Date.parse(event.created_at));
    // The deliveries of these events, and only a few others, through the delivery key's time order.
    const kept = await db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('id', '>=', uuidV7TimePrefix(Math.min(...times)))
      .where('id', '<', uuidV7TimePrefix(Math.max(...times) + 1))
      .where(
        'event_id',
        'in',
        candidates.map((event) => event.id),
      )
      .execute();
    const held = new Set(kept.map((row) => row.event_id));
    const free = candidates.filter((event) => !held.has(event.id)).map((event) => event.seq);
    if (free.length > 0) {
      const result = await db
        .deleteFrom('outbox_events')
        .where('seq', 'in', free)
        .where('dispatched_at', 'is not', null)
        .executeTakeFirst();
      deleted = Number(result.numDeletedRows);
    }
  }
  const last = old[old.length - 1];
  const more = youngAt === -1 && scanned.length === batch.limit && last !== undefined;
  return { deleted, next: more ? String(last.seq) : null };
}
