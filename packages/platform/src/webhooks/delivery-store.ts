import type { Kysely } from 'kysely';
import type { ListSettings } from '../lists/list-engine.js';
import { runList } from '../lists/list-engine.js';
import type { Schema } from '../storage/schema.js';
import { deliveriesList, type presentDelivery } from './delivery-admin-routes.js';
import { deliveryId } from './delivery-id.js';
import type { DeliveryState } from './webhook-tables.js';

/** What the console's delivery log may filter on; each maps to the seller API's list parameters. */
export interface DeliveryLogFilters {
  status?: DeliveryState | undefined;
  /** Failed as Stripe's log counts it: given up (dead), or pending after a failed attempt (still retrying). */
  failed?: boolean | undefined;
  topic?: string | undefined;
  subscriptionId?: string | undefined;
  /** ISO instants: created at or after `from`, before `to`. */
  from?: string | undefined;
  to?: string | undefined;
  /** A delivery id (whole or its end, as the log shows it) or an event id. */
  search?: string | undefined;
}

export type DeliveryLogEntry = ReturnType<typeof presentDelivery>;

/**
 * One page of a store's delivery log, newest first, through the list engine
 * the seller API uses (its filters and signed cursor, spec-notes L4): the
 * console pages past the newest 50 with `nextToken`, and gets the next one
 * back (null on the last page). The search and the failed filter are part of
 * the base query, so a cursor made with them continues the same search.
 */
export async function storeDeliveryPage(
  db: Kysely<Schema>,
  settings: ListSettings,
  input: { tenantId: string; filters: DeliveryLogFilters; nextToken?: string | undefined; limit: number },
): Promise<{ entries: DeliveryLogEntry[]; nextToken: string | null }> {
  const f = input.filters;
  const base = baseOfLog(db, input.tenantId, f).selectAll();
  const query: Record<string, string> = { _paginate: 'cursor', _limit: String(input.limit), _sort: 'created_at:desc' };
  if (f.status) query.status = f.status;
  if (f.topic) query.topic = f.topic;
  if (f.subscriptionId) query.subscription_id = f.subscriptionId;
  if (f.from) query.created_at__gte = f.from;
  if (f.to) query.created_at__lt = f.to;
  if (input.nextToken) query._next_token = input.nextToken;
  const page = await runList(deliveriesList, base as never, { query, url: '/console' }, settings);
  const next = page.meta.links.next;
  return {
    entries: page.results,
    nextToken: next ? new URL(next, 'http://console.invalid').searchParams.get('_next_token') : null,
  };
}

/** The log's rows of one store with the conditions the list engine does not take: the search and the failed filter. */
function baseOfLog(db: Kysely<Schema>, tenantId: string, f: DeliveryLogFilters) {
  let base = db.selectFrom('webhook_deliveries').where('tenant_id', '=', tenantId);
  const search = f.search?.trim().toLowerCase();
  if (search) {
    base = base.where((eb) =>
      eb.or([eb('id', '=', search), eb('event_id', '=', search), eb('id', 'like', `%${search.replace(/[\\%_]/g, '')}`)]),
    );
  }
  if (f.failed) {
    base = base.where((eb) => eb.or([eb('state', '=', 'dead'), eb.and([eb('state', '=', 'pending'), eb('attempts', '>', 0)])]));
  }
  return base;
}

/** What a store's log counts at most (D156): past it the console says "10,000+" instead of reading on. */
const DELIVERY_COUNT_CAP = 10_000;

/**
 * How many of a store's deliveries match the log's filters (D156), counted up
 * to the cap: the count stops at the first row past it, so a store of millions
 * costs what one of ten thousand does; `more` when there are more. The filters
 * mean what the page's do.
 */
export async function countStoreDeliveries(
  db: Kysely<Schema>,
  input: { tenantId: string; filters: DeliveryLogFilters },
): Promise<{ total: number; more: boolean }> {
  const f = input.filters;
  const cap = DELIVERY_COUNT_CAP;
  let matching = baseOfLog(db, input.tenantId, f);
  if (f.status) matching = matching.where('state', '=', f.status);
  if (f.topic) matching = matching.where('topic', '=', f.topic);
  if (f.subscriptionId) matching = matching.where('subscription_id', '=', f.subscriptionId);
  // As the list engine compares a datetime filter: the UTC ISO text the column holds.
  if (f.from) matching = matching.where('created_at', '>=', new Date(f.from).toISOString());
  if (f.to) matching = matching.where('created_at', '<', new Date(f.to).toISOString());
  const row = await db
    .selectFrom(
      matching
        .select('id')
        .limit(cap + 1)
        .as('matching'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  const n = Number(row?.n ?? 0);
  return { total: Math.min(n, cap), more: n > cap };
}

/** The store a delivery belongs to, by the delivery's whole id (the operator's search, D157); undefined when there is none. */
export async function deliveryStoreId(db: Kysely<Schema>, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('webhook_deliveries').select('tenant_id').where('id', '=', id).executeTakeFirst();
  return row?.tenant_id;
}

/** The attempts made for one subscription's deliveries since `sinceIso`, oldest first, at most `limit` (its page's chart). */
export function subscriptionAttemptsSince(
  db: Kysely<Schema>,
  subscriptionId: string,
  sinceIso: string,
  limit: number,
): Promise<Array<{ started_at: string; outcome: 'succeeded' | 'failed'; duration_ms: number }>> {
  return db
    .selectFrom('webhook_delivery_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_delivery_attempts.delivery_id')
    .select([
      'webhook_delivery_attempts.started_at',
      'webhook_delivery_attempts.outcome',
      'webhook_delivery_attempts.duration_ms',
    ])
    .where('webhook_deliveries.subscription_id', '=', subscriptionId)
    .where('webhook_delivery_attempts.started_at', '>=', sinceIso)
    .orderBy('webhook_delivery_attempts.started_at', 'desc')
    .limit(limit)
    .execute()
    .then((rows) => rows.reverse());
}

/**
 * Queues one delivery of an event already in the outbox to one subscription,
 * due now (a test event from the console, D66): the dispatcher sends it as
 * any other, signed with the subscription's secrets, and it shows in the log
 * marked as a test (D153), on every attempt and resend.
 */
export async function queueTestDelivery(
  db: Kysely<Schema>,
  input: { event: { id: string; created_at: string; topic: string }; subscriptionId: string; tenantId: string },
  now: Date,
): Promise<string> {
  const id = deliveryId(input.event.id, input.subscriptionId, input.event.created_at);
  const at = now.toISOString();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id,
      event_id: input.event.id,
      subscription_id: input.subscriptionId,
      tenant_id: input.tenantId,
      topic: input.event.topic,
      state: 'pending',
      next_attempt_at: at,
      event_created_at: input.event.created_at,
      created_at: at,
      updated_at: at,
      last_status_code: null,
      last_error: null,
      lease_owner: null,
      lease_until: null,
      delivered_at: null,
      is_test: 1,
    })
    .execute();
  return id;
}
