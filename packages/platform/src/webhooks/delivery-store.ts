import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../storage/schema.js';
import type { DeliveryState, WebhookTables } from './webhook-tables.js';

/** The newest deliveries of a store, optionally of one state, at most `limit` (the console's webhooks page). */
export function newestStoreDeliveries(
  db: Kysely<Schema>,
  tenantId: string,
  state: DeliveryState | null,
  limit: number,
): Promise<Array<Selectable<WebhookTables['webhook_deliveries']>>> {
  let deliveries = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (state) deliveries = deliveries.where('state', '=', state);
  return deliveries.execute();
}
