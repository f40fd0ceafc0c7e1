import type { Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';
import type { ClaimedDelivery } from './claim-queries.js';
import { type DeliveryTarget, deliveryTarget } from './delivery-request.js';
import type { SubscriptionRow } from './webhook-tables.js';

/** A claimed delivery ready to send: its subscription, its event's body and where it goes. */
export interface DeliveryJob {
  claim: ClaimedDelivery;
  subscription: SubscriptionRow;
  body: string;
  target: DeliveryTarget;
  /** When its claim's lease ends unless renewed (epoch ms). */
  leaseUntil: number;
}

/** What a fan-out already read in its own statement: no need to read it again. */
export interface FanOutReads {
  bodies: Map<string, string>;
  subscriptions: readonly SubscriptionRow[];
}

export interface PreparedJobs {
  /** Jobs to send, each with its endpoint origin. */
  jobs: Array<{ origin: string; job: DeliveryJob }>;
  /** Claims not to send: their subscription is disabled or gone, or their event is gone. */
  unsendable: Array<{ claim: ClaimedDelivery; reason: string }>;
  /** Every subscription read, with its origin. */
  origins: Array<{ subscriptionId: string; origin: string }>;
}

const READ_CHUNK = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Reads what claimed deliveries need to be sent (their subscriptions and event bodies, 500 ids per
 * query, except what `fromFanOut` already holds) and turns them into jobs. Each subscription's URL is
 * parsed once per call, not once per delivery.
 */
export async function prepareJobs(
  db: Kysely<Schema>,
  claims: readonly ClaimedDelivery[],
  fromFanOut: FanOutReads | null,
  leaseUntil: number,
): Promise<PreparedJobs> {
  const subscriptions = new Map<string, { row: SubscriptionRow; target: DeliveryTarget }>();
  const add = (row: SubscriptionRow) => subscriptions.set(row.id, { row, target: deliveryTarget(row.url) });
  for (const row of fromFanOut?.subscriptions ?? []) add(row);
  const unreadSubscriptions = [...new Set(claims.map((c) => c.subscription_id))].filter((id) => !subscriptions.has(id));
  for (const ids of chunks(unreadSubscriptions, READ_CHUNK)) {
    for (const row of await db.selectFrom('webhook_subscriptions').selectAll().where('id', 'in', ids).execute()) add(row);
  }
  const bodies = fromFanOut?.bodies ?? new Map<string, string>();
  const unreadBodies = [...new Set(claims.map((c) => c.event_id))].filter((id) => !bodies.has(id));
  for (const ids of chunks(unreadBodies, READ_CHUNK)) {
    for (const row of await db.selectFrom('outbox_events').select(['id', 'body']).where('id', 'in', ids).execute()) {
      bodies.set(row.id, row.body);
    }
  }
  const prepared: PreparedJobs = { jobs: [], unsendable: [], origins: [] };
  for (const [subscriptionId, { target }] of subscriptions) prepared.origins.push({ subscriptionId, origin: target.origin });
  for (const claim of claims) {
    const found = subscriptions.get(claim.subscription_id);
    const body = bodies.get(claim.event_id);
    if (found?.row.state !== 'active' || body === undefined) {
      prepared.unsendable.push({ claim, reason: found ? 'subscription disabled' : 'subscription removed' });
      continue;
    }
    prepared.jobs.push({
      origin: found.target.origin,
      job: { claim, subscription: found.row, body, target: found.target, leaseUntil },
    });
  }
  return prepared;
}
