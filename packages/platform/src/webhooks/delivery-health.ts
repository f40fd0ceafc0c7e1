import type { Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';
import type { DeliveryState } from './webhook-tables.js';

/**
 * The deliveries of a window, newest first, at most `limit`: those created
 * since `sinceIso`, those still pending, and those that changed since (the
 * operator console's health charts count the work waiting at each minute).
 */
export function deliveriesInWindow(
  db: Kysely<Schema>,
  sinceIso: string,
  limit: number,
): Promise<Array<{ created_at: string; state: DeliveryState; delivered_at: string | null; updated_at: string }>> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['created_at', 'state', 'delivered_at', 'updated_at'])
    .where((eb) => eb.or([eb('created_at', '>=', sinceIso), eb('state', '=', 'pending'), eb('updated_at', '>=', sinceIso)]))
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** The delivery attempts started since `sinceIso`, newest first, at most `limit`, with their outcome. */
export function deliveryAttemptsSince(
  db: Kysely<Schema>,
  sinceIso: string,
  limit: number,
): Promise<Array<{ started_at: string; outcome: 'succeeded' | 'failed' }>> {
  return db
    .selectFrom('webhook_delivery_attempts')
    .select(['started_at', 'outcome'])
    .where('started_at', '>=', sinceIso)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

/** A store's deliveries created since `sinceIso`, newest first, at most `limit` (the store overview's chart). */
export function storeDeliveriesSince(
  db: Kysely<Schema>,
  tenantId: string,
  sinceIso: string,
  limit: number,
): Promise<Array<{ created_at: string; state: DeliveryState }>> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['created_at', 'state'])
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>=', sinceIso)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}
