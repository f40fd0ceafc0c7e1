import { sql } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database } from '../storage/database.js';

export interface WebhookMetrics {
  /** Attempts by outcome: `succeeded`, `failed` (will retry), `dead` (gave up), `stale` (lost its lease). */
  deliveries: Counter<'outcome'>;
  /** Time from the request to the receiver's full answer, per attempt. */
  latency: Histogram<'outcome'>;
  /** Results the database did not take: their deliveries are sent again once their lease runs out. */
  unrecorded: Counter;
}

function getOrCreate<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/** The delivery counters of a registry; created once per registry (no global prom-client state). */
export function webhookMetrics(registry: Registry): WebhookMetrics {
  return {
    deliveries: getOrCreate(
      registry,
      'feira_webhook_deliveries_total',
      () =>
        new Counter({
          name: 'feira_webhook_deliveries_total',
          help: 'Webhook delivery attempts by outcome',
          labelNames: ['outcome'],
          registers: [registry],
        }),
    ),
    latency: getOrCreate(
      registry,
      'feira_webhook_delivery_duration_seconds',
      () =>
        new Histogram({
          name: 'feira_webhook_delivery_duration_seconds',
          help: 'Duration of webhook delivery attempts, request sent to answer read',
          labelNames: ['outcome'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        }),
    ),
    unrecorded: getOrCreate(
      registry,
      'feira_webhook_results_unrecorded_total',
      () =>
        new Counter({
          name: 'feira_webhook_results_unrecorded_total',
          help: 'Delivery results the database did not take; their deliveries are sent again once their lease runs out',
          registers: [registry],
        }),
    ),
  };
}

/**
 * Gauges read from the database at scrape time, so they are right whichever
 * process dispatches: events not yet fanned out, deliveries waiting, and the
 * age of the oldest event still waiting for either.
 */
export function registerBacklogGauges(registry: Registry, database: Database, now: () => Date): void {
  if (registry.getSingleMetric('feira_webhook_outbox_backlog')) return;
  new Gauge({
    name: 'feira_webhook_outbox_backlog',
    help: 'Outbox events not yet fanned out to deliveries',
    registers: [registry],
    async collect() {
      const row = await database.db
        .selectFrom('outbox_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    },
  });
  new Gauge({
    name: 'feira_webhook_deliveries_pending',
    help: 'Deliveries waiting for their next attempt (including retries scheduled later)',
    registers: [registry],
    async collect() {
      const halves = await Promise.all(
        pendingDeliveries(database).map((half) => half.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst()),
      );
      this.set(halves.reduce((sum, row) => sum + Number(row?.n ?? 0), 0));
    },
  });
  new Gauge({
    name: 'feira_webhook_oldest_pending_event_age_seconds',
    help: 'Age of the oldest event not yet fanned out or with a delivery still pending (0 when none)',
    registers: [registry],
    async collect() {
      const outbox = await database.db
        .selectFrom('outbox_events')
        .select((eb) => eb.fn.min('created_at').as('oldest'))
        .where('dispatched_at', 'is', null)
        .executeTakeFirst();
      const deliveries = await Promise.all(
        pendingDeliveries(database).map((half) =>
          half.select((eb) => eb.fn.min('event_created_at').as('oldest')).executeTakeFirst(),
        ),
      );
      const oldest = [outbox?.oldest, ...deliveries.map((d) => d?.oldest)]
        .filter((v): v is string => typeof v === 'string')
        .sort()[0];
      this.set(oldest ? Math.max(0, (now().getTime() - Date.parse(oldest)) / 1000) : 0);
    },
  });
}

/**
 * Pending deliveries held by nobody, or under a lease: each half is one of the
 * claims' partial indexes (migration 0015), so a gauge reads only pending rows,
 * never the succeeded ones that make up most of the table. The state is a
 * literal so that SQLite matches the indexes' `WHERE`.
 */
function pendingDeliveries(database: Database) {
  const pending = database.db.selectFrom('webhook_deliveries').where('state', '=', sql.lit('pending'));
  return [pending.where('lease_until', 'is', null), pending.where('lease_until', 'is not', null)];
}
