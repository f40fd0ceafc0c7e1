import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { Database } from '../storage/database.js';
import { type ClaimedDelivery, claimOutboxEvents } from './claim-queries.js';

/** Leases the fan-out takes for the worker running it, so it can send at once without a separate claim. */
export interface FanOutLease {
  worker: string;
  leaseUntilIso: string;
  /** At most this many of the new deliveries are leased (the worker's free capacity); the rest wait to be claimed. */
  max: number;
}

export interface FanOutResult {
  /** Outbox events taken. */
  events: number;
  /** Deliveries created already leased to the worker (fence 1), with their event's body. */
  leased: Array<{ claim: ClaimedDelivery; body: string }>;
}

/**
 * Turns up to `limit` outbox events into deliveries, one per matching active
 * subscription of the event's tenant and topic. Claim, inserts and the
 * "dispatched" mark are one transaction (spec-notes W6): a crash before
 * commit leaves the events in the outbox, a crash after leaves the deliveries.
 *
 * With `lease`, up to `lease.max` of the new deliveries are inserted already
 * leased to that worker (the same columns a claim sets, fence 1), and returned
 * with their bodies: a backlog is drained without a claim UPDATE and a body
 * SELECT per delivery. A crash after commit leaves them leased until the lease
 * runs out, then any worker claims them, as after a crash mid-send.
 */
export async function fanOutEvents(
  database: Database,
  deps: { clock: Clock; random: Random },
  limit: number,
  lease?: FanOutLease,
): Promise<FanOutResult> {
  const nowIso = deps.clock.now().toISOString();
  return database.db.transaction().execute(async (trx) => {
    const events = await claimOutboxEvents(trx, database.dialect, limit, nowIso);
    if (events.length === 0) return { events: 0, leased: [] };
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
    const leased: FanOutResult['leased'] = [];
    const rows = events.flatMap((event) =>
      (byKey.get(`${event.tenant_id}\u0000${event.topic}`) ?? []).map((subscriptionId) => {
        const id = deps.random.uuid();
        const take = lease !== undefined && leased.length < lease.max;
        if (take)
          leased.push({
            claim: { id, event_id: event.id, subscription_id: subscriptionId, attempts: 0, fence: 1 },
            body: event.body,
          });
        return {
          id,
          event_id: event.id,
          subscription_id: subscriptionId,
          tenant_id: event.tenant_id,
          topic: event.topic,
          state: 'pending' as const,
          next_attempt_at: nowIso,
          lease_owner: take ? lease.worker : null,
          lease_until: take ? lease.leaseUntilIso : null,
          fence: take ? 1 : 0,
          last_status_code: null,
          last_error: null,
          event_created_at: event.created_at,
          created_at: nowIso,
          updated_at: nowIso,
          delivered_at: null,
        };
      }),
    );
    // Chunks keep each statement under SQLite's bound-parameter limit. A delivery that already
    // existed (`do nothing`) is not returned, and so is not sent under a lease it does not hold.
    const inserted = new Set<string>();
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.columns(['event_id', 'subscription_id']).doNothing())
        .returning('id')
        .execute();
      if (lease) for (const row of chunk) inserted.add(row.id);
    }
    return { events: events.length, leased: leased.filter((l) => inserted.has(l.claim.id)) };
  });
}
