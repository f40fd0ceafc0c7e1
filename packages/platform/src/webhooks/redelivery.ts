import type { Kysely, Selectable } from 'kysely';
import { refuse } from '../core/refusals.js';
import type { Schema } from '../storage/schema.js';
import type { WebhookTables } from './webhook-tables.js';

type DeliveryRow = Selectable<WebhookTables['webhook_deliveries']>;

/**
 * W4: a dead (or delivered) delivery is sent again with the same `X-Webhook-Id`
 * and a new cycle of 8 attempts. A lease in progress is left alone, so a
 * redelivery never causes two requests at once. Used by the admin API, the
 * seller's API and console, and `feira dispatch --redeliver`.
 */
export async function redeliverDelivery(db: Kysely<Schema>, id: string, now: Date): Promise<DeliveryRow> {
  const nowIso = now.toISOString();
  const updated = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', attempts: 0, next_attempt_at: nowIso, updated_at: nowIso })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw refuse('WEBHOOK_DELIVERY_NOT_FOUND');
  return updated;
}

/**
 * Every failed (dead) delivery created at or after `since` (and before
 * `scope.until`, when given), in the given
 * stores (and, for an app, its own subscriptions), sent again as
 * {@link redeliverDelivery} does, in one statement; the count is returned.
 */
export async function redeliverFailedSince(
  db: Kysely<Schema>,
  scope: {
    tenantIds: readonly string[];
    clientId: string | null;
    subscriptionId?: string;
    /** Leave out the deliveries of disabled subscriptions (they would go straight back to dead, W4): the console's choice. */
    activeOnly?: boolean;
    /** Only deliveries created before this instant (the console's end date); none by default. */
    until?: Date;
  },
  since: Date,
  now: Date,
): Promise<number> {
  if (scope.tenantIds.length === 0) return 0;
  const nowIso = now.toISOString();
  let update = db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', attempts: 0, next_attempt_at: nowIso, updated_at: nowIso })
    .where('state', '=', 'dead')
    .where('created_at', '>=', since.toISOString())
    .where('tenant_id', 'in', [...scope.tenantIds]);
  if (scope.until) update = update.where('created_at', '<', scope.until.toISOString());
  if (scope.subscriptionId) update = update.where('subscription_id', '=', scope.subscriptionId);
  if (scope.clientId) {
    const clientId = scope.clientId;
    update = update.where('subscription_id', 'in', (eb) =>
      eb.selectFrom('webhook_subscriptions').select('id').where('client_id', '=', clientId),
    );
  }
  if (scope.activeOnly) {
    update = update.where('subscription_id', 'in', (eb) =>
      eb.selectFrom('webhook_subscriptions').select('id').where('state', '=', 'active'),
    );
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many failed deliveries of a store since `since` (and before `until`) belong to disabled subscriptions (what "resend all failed" leaves out). */
export async function failedOfDisabledSince(db: Kysely<Schema>, tenantId: string, since: Date, until?: Date): Promise<number> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('state', '=', 'dead')
    .where('created_at', '>=', since.toISOString())
    .where('subscription_id', 'in', (eb) =>
      eb.selectFrom('webhook_subscriptions').select('id').where('tenant_id', '=', tenantId).where('state', '=', 'disabled'),
    );
  if (until) query = query.where('created_at', '<', until.toISOString());
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}
