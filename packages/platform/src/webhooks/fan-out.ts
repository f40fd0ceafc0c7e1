import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { Database } from '../storage/database.js';
import { claimOutboxEvents } from './claim-queries.js';

/**
 * Turns up to `limit` outbox events into deliveries, one per matching active
 * subscription of the event's tenant and topic. Claim, inserts and the
 * "dispatched" mark are one transaction (SPEC-DECISIONS W6): a crash before
 * commit leaves the events in the outbox, a crash after leaves the deliveries.
 * Returns how many events were taken.
 */
export async function fanOutEvents(database: Database, deps: { clock: Clock; random: Random }, limit: number): Promise<number> {
  const nowIso = deps.clock.now().toISOString();
  return database.db.transaction().execute(async (trx) => {
    const events = await claimOutboxEvents(trx, database.dialect, limit, nowIso);
    if (events.length === 0) return 0;
    const tenants = [...new Set(events.map((e) => e.tenant_id))];
    const subscriptions = await trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'tenant_id', 'topic'])
      .where('tenant_id', 'in', tenants)
      .where('state', '=', 'active')
      .execute();
    const byKey = new Map<string, string[]>();
    for (const s of subscriptions) {
      const key = `${s.tenant_id}\u0000${s.topic}`;
      byKey.set(key, [...(byKey.get(key) ?? []), s.id]);
    }
    const rows = events.flatMap((event) =>
      (byKey.get(`${event.tenant_id}\u0000${event.topic}`) ?? []).map((subscriptionId) => ({
        id: deps.random.uuid(),
        event_id: event.id,
        subscription_id: subscriptionId,
        tenant_id: event.tenant_id,
        topic: event.topic,
        state: 'pending' as const,
        next_attempt_at: nowIso,
        lease_owner: null,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        event_created_at: event.created_at,
        created_at: nowIso,
        updated_at: nowIso,
        delivered_at: null,
      })),
    );
    // Chunks keep each statement under SQLite's bound-parameter limit.
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.columns(['event_id', 'subscription_id']).doNothing())
        .execute();
    }
    return events.length;
  });
}
