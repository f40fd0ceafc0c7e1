import { type Selectable, sql } from 'kysely';
import type { Clock } from '../core/clock.js';
import { ASYNC_COMMIT_SQL } from '../storage/async-commit.js';
import type { Database } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import { queryNamed } from '../storage/named-statement.js';
import type { Schema } from '../storage/schema.js';
import { multiRowInsert } from '../storage/statement-shapes.js';
import { type ClaimedDelivery, claimOutboxEvents } from './claim-queries.js';
import { deliveryId, deliveryIdSql } from './delivery-id.js';
import type { SubscriptionRow, WebhookTables } from './webhook-tables.js';

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
  /**
   * The subscriptions of the leased deliveries, read by the fan-out itself (active when it ran):
   * the dispatcher signs and sends with them without reading them again.
   */
  subscriptions: SubscriptionRow[];
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
  deps: { clock: Clock },
  limit: number,
  lease?: FanOutLease,
): Promise<FanOutResult> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  if (dialectAdapter(database).supportsWritableCte) return fanOutInOneStatement(database, nowIso, limit, lease);
  return database.db.transaction().execute(async (trx) => {
    const events = await claimOutboxEvents(trx, limit, nowIso);
    if (events.length === 0) return { events: 0, leased: [], subscriptions: [] };
    const tenants = [...new Set(events.map((e) => e.tenant_id))];
    const subscriptions = await trx
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('tenant_id', 'in', tenants)
      .where('state', '=', 'active')
      .execute();
    const byKey = new Map<string, string[]>();
    for (const s of subscriptions) {
      const key = `${s.tenant_id}\u0000${s.topic}`;
      const ids = byKey.get(key);
      if (ids) ids.push(s.id);
      else byKey.set(key, [s.id]);
    }
    const leased: FanOutResult['leased'] = [];
    const targets = events.flatMap((event) =>
      (byKey.get(`${event.tenant_id}\u0000${event.topic}`) ?? []).map((subscriptionId) => ({ event, subscriptionId })),
    );
    // One flat array of values in DELIVERY_COLUMNS order, bound to a statement compiled once per batch length.
    const values: unknown[] = [];
    for (const { event, subscriptionId } of targets) {
      const id = deliveryId(event.id, subscriptionId, event.created_at);
      const take = lease !== undefined && leased.length < lease.max;
      if (take)
        leased.push({
          claim: { id, event_id: event.id, subscription_id: subscriptionId, attempts: 0, fence: 1 },
          body: event.body,
        });
      pushDeliveryValues(values, {
        id,
        event_id: event.id,
        subscription_id: subscriptionId,
        tenant_id: event.tenant_id,
        topic: event.topic,
        next_attempt_at: nowIso,
        lease_owner: take ? lease.worker : null,
        lease_until: take ? lease.leaseUntilIso : null,
        fence: take ? 1 : 0,
        event_created_at: event.created_at,
        created_at: nowIso,
        updated_at: nowIso,
      });
    }
    // Chunks keep each statement under SQLite's bound-parameter limit. A delivery that already
    // existed (`do nothing`) is not returned, and so is not sent under a lease it does not hold.
    const inserted = new Set<string>();
    const width = DELIVERY_COLUMNS.length;
    for (let i = 0; i < targets.length; i += 500) {
      const rows = Math.min(500, targets.length - i);
      const chunk = values.slice(i * width, (i + rows) * width);
      const result = await trx.executeQuery<{ id: string }>(INSERT_DELIVERIES.query(trx, 'sqlite', rows, chunk));
      if (lease) for (const row of result.rows) inserted.add(row.id);
    }
    const sent = leased.filter((l) => inserted.has(l.claim.id));
    const used = new Set(sent.map((l) => l.claim.subscription_id));
    return { events: events.length, leased: sent, subscriptions: subscriptions.filter((s) => used.has(s.id)) };
  });
}

/** What SQLite's fan-out binds per delivery; the other columns are constants of the statement. */
type NewDelivery = Pick<Selectable<WebhookTables['webhook_deliveries']>, (typeof DELIVERY_COLUMNS)[number]>;

/** …in the order its batched INSERT binds them… */
const DELIVERY_COLUMNS = [
  'id',
  'event_id',
  'subscription_id',
  'tenant_id',
  'topic',
  'next_attempt_at',
  'lease_owner',
  'lease_until',
  'fence',
  'event_created_at',
  'created_at',
  'updated_at',
] as const;

/** …and a delivery's values in that order (named reads, as the attempt log's). */
function pushDeliveryValues(values: unknown[], row: NewDelivery): void {
  values.push(
    row.id,
    row.event_id,
    row.subscription_id,
    row.tenant_id,
    row.topic,
    row.next_attempt_at,
    row.lease_owner,
    row.lease_until,
    row.fence,
    row.event_created_at,
    row.created_at,
    row.updated_at,
  );
}

/** A new delivery: pending, no attempt yet, leased to the fanning-out worker or to nobody. */
const INSERT_DELIVERIES = multiRowInsert<Schema>('fan-out insert', 'webhook_deliveries', DELIVERY_COLUMNS, {
  constants: { state: sql.lit('pending'), attempts: sql.lit(0) },
  // The id is a function of the event and the subscription (delivery-id.ts): a second fan-out of the pair finds it.
  finish: (insert) => insert.onConflict((oc) => oc.column('id').doNothing()).returning('id'),
});

/** The fan-out's prepared statement's name on each PostgreSQL connection (its text never changes within a process). */
const FAN_OUT_STATEMENT = 'feira_fan_out';

interface FanOutRow {
  events: number;
  id: string | null;
  event_id: string | null;
  subscription_id: string | null;
  fence: number | null;
  body: string | null;
  /** The first leased delivery of each subscription carries the subscription's row. */
  subscription: SubscriptionRow | null;
}

/**
 * PostgreSQL: the same fan-out as one statement, so one round trip instead of
 * five (BEGIN, claim, subscriptions, insert, COMMIT): each pg query costs the
 * platform about the same CPU whatever it does, and under a steady flow of
 * events the fan-out's were most of them (docs/decisions.md D4). A single
 * statement is atomic by itself: claim, inserts and the "dispatched" mark
 * commit together or not at all, as in the transaction above. It commits
 * without waiting for the WAL flush (storage/async-commit.ts): a fan-out a
 * database crash undoes is done again, under the same delivery ids
 * (delivery-id.ts, computed here in SQL). The first `lease.max` new
 * deliveries (by event order) are leased to the worker; each comes back with its event's body, and
 * the first of each subscription with the subscription's row, so that the
 * dispatcher sends without a second round trip to read it (under a steady
 * flow, when a fan-out takes one or two events, that read was one query per event).
 */
async function fanOutInOneStatement(
  database: Database,
  nowIso: string,
  limit: number,
  lease: FanOutLease | undefined,
): Promise<FanOutResult> {
  const max = lease?.max ?? 0;
  const worker = lease?.worker ?? null;
  const leaseUntil = lease?.leaseUntilIso ?? null;
  const query = sql<FanOutRow>`
    with claimed as (
      update outbox_events set dispatched_at = ${nowIso}
      where seq in (
        select seq from outbox_events where dispatched_at is null order by seq limit ${limit} for update skip locked
      )
      returning seq, id, tenant_id, topic, body, created_at
    ),
    targets as (
      select c.id as event_id, c.tenant_id, c.topic, c.created_at, s.id as subscription_id,
             row_number() over (order by c.seq, s.id) as n
      from claimed c
      join webhook_subscriptions s on s.tenant_id = c.tenant_id and s.topic = c.topic and s.state = 'active'
    ),
    inserted as (
      insert into webhook_deliveries (
        id, event_id, subscription_id, tenant_id, topic, state, next_attempt_at,
        lease_owner, lease_until, fence, event_created_at, created_at, updated_at
      )
      select
        ${sql.raw(deliveryIdSql('event_id', 'subscription_id', 'created_at'))}, event_id, subscription_id, tenant_id, topic, 'pending', ${nowIso},
        case when n <= ${max} then ${worker}::text end,
        case when n <= ${max} then ${leaseUntil}::text end,
        case when n <= ${max} then 1 else 0 end,
        created_at, ${nowIso}, ${nowIso}
      from targets
      on conflict (id) do nothing
      returning id, event_id, subscription_id, fence
    )
    select (select count(*) from claimed)::int as events, (select ${sql.raw(ASYNC_COMMIT_SQL)}) as async_commit,
           i.id, i.event_id, i.subscription_id, i.fence,
           case when i.fence = 1 then c.body end as body,
           case when i.fence = 1 and i.first then
             (select row_to_json(s) from webhook_subscriptions s where s.id = i.subscription_id)
           end as subscription
    from claimed c
    left join (
      select *, row_number() over (partition by subscription_id, fence order by id) = 1 as first from inserted
    ) i on i.event_id = c.id
  `.compile(database.db);
  // A named statement: each connection parses and plans it once, then reuses the plan. Planned afresh at
  // every call, planning was a large share of running it when a fan-out takes an event or two
  // (docs/decisions.md D5).
  const rows = database.pgPool
    ? await queryNamed(database.pgPool, FAN_OUT_STATEMENT, query)
    : (await database.db.executeQuery(query)).rows;
  const leased: FanOutResult['leased'] = [];
  const subscriptions: SubscriptionRow[] = [];
  for (const row of rows) {
    if (row.subscription) subscriptions.push(row.subscription);
    if (row.id === null || row.fence !== 1 || row.body === null) continue;
    leased.push({
      claim: {
        id: row.id,
        event_id: row.event_id as string,
        subscription_id: row.subscription_id as string,
        attempts: 0,
        fence: 1,
      },
      body: row.body,
    });
  }
  return { events: rows[0]?.events ?? 0, leased, subscriptions };
}
