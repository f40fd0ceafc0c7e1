import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import type { Database } from '../storage/database.js';
import { openSqliteConnection } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { postgresPlanNodes, sqlitePlan } from '../storage/test-query-plans.js';
import { testDatabaseTargets } from '../test-databases.js';
import { claimDueDeliveries, claimOutboxEvents } from './claim-queries.js';
import { fanOutEvents } from './fan-out.js';
import { registerBacklogGauges } from './webhook-metrics.js';

// spec-notes W6: the dispatcher's queries run every poll, on tables where
// almost every row is done (dispatched events, succeeded deliveries). Each
// claim and backlog gauge must read only its candidates, through the partial
// indexes of migrations 0012 and 0015, never the whole table: otherwise a claim
// that finds nothing costs as much as the table is large (docs/decisions.md
// D11). Checked on the
// query plans: on PostgreSQL with sequential and bitmap scans off (a few rows
// would rightly be scanned otherwise), so the plan answers "can an index that
// holds only the candidates serve this query?".

/**
 * How a queue query may read webhook_deliveries and outbox_events: through a
 * partial index, or by primary key (the claimed rows' UPDATE finds them by id).
 */
const QUEUE_INDEXES =
  /^(webhook_deliveries_unleased_idx|webhook_deliveries_leased_idx|outbox_undispatched_idx|webhook_deliveries_pkey|sqlite_autoindex_webhook_deliveries_1|outbox_events_pkey|rowid)$/;
const QUEUE_TABLES = ['webhook_deliveries', 'outbox_events'];

describe.each(testDatabaseTargets())('queue queries read only their candidates ($dialect query plans)', (target) => {
  let database: Database;
  let logged: Kysely<Schema>;
  const captured: CompiledQuery[] = [];
  /** How each table is read by one statement: an index name, or "scan" for a read of every row. */
  let explain: (query: CompiledQuery) => Promise<Array<{ table: string; index: string | null }>>;
  let closeLogged: () => Promise<void>;

  beforeAll(async () => {
    database = await target.open();
    const log = (event: { level: string; query: CompiledQuery }) => {
      if (event.level === 'query') captured.push(event.query);
    };
    if (database.sqliteFile) {
      const raw = openSqliteConnection(database.sqliteFile);
      logged = new Kysely<Schema>({ dialect: new SqliteDialect({ database: raw }), log });
      closeLogged = () => logged.destroy();
      explain = async (query) =>
        sqlitePlan(raw, query)
          .filter((detail) => /^(SCAN|SEARCH) /.test(detail))
          .map((detail) => {
            const table = detail.split(' ')[1] as string;
            return {
              table,
              index:
                /USING (?:COVERING )?INDEX (\S+)/.exec(detail)?.[1] ??
                (/USING INTEGER PRIMARY KEY/.test(detail) ? 'rowid' : null),
            };
          });
    } else {
      const pool = database.pgPool as NonNullable<Database['pgPool']>;
      logged = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log });
      // The pool is the database's own: closed with it, not here.
      closeLogged = async () => {};
      explain = async (query) => {
        const client = await pool.connect();
        try {
          await client.query('set enable_seqscan = off');
          await client.query('set enable_bitmapscan = off');
          return (await postgresPlanNodes(client, query))
            .filter((node) => node['Node Type'].endsWith('Scan') && node['Relation Name'])
            .map((node) => ({ table: node['Relation Name'] as string, index: node['Index Name'] ?? null }));
        } finally {
          await client.query('reset all');
          client.release();
        }
      };
    }
  });
  afterAll(async () => {
    await closeLogged?.();
    await database?.close();
  });

  /** Runs `work` against the logged connection and returns how each of its statements reads the queue tables. */
  async function readsOf(work: (db: Kysely<Schema>) => Promise<unknown>) {
    captured.length = 0;
    await work(logged);
    const queries = captured.filter((q) => QUEUE_TABLES.some((table) => q.sql.includes(table)));
    expect(queries.length).toBeGreaterThan(0);
    const reads = [];
    for (const query of queries) reads.push(...(await explain(query)).map((read) => ({ ...read, sql: query.sql })));
    return reads.filter((read) => QUEUE_TABLES.includes(read.table));
  }

  const expectPartialIndexes = (reads: Array<{ table: string; index: string | null; sql: string }>) => {
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read.index ?? 'a scan of every row', read.sql).toMatch(QUEUE_INDEXES);
  };

  const claimOptions = (which: 'unleased' | 'expired') => ({
    worker: 'w',
    limit: 50,
    nowIso: '2026-01-15T12:00:00.000Z',
    leaseUntilIso: '2026-01-15T12:00:10.000Z',
    skipSubscriptions: ['busy-subscription'],
    which,
  });

  it('spec-notes W6: the claim of due deliveries held by nobody reads webhook_deliveries_unleased_idx', async () => {
    const reads = await readsOf((db) => claimDueDeliveries(db, target.dialect, claimOptions('unleased')));
    expectPartialIndexes(reads);
    expect(reads.map((r) => r.index)).toContain('webhook_deliveries_unleased_idx');
  });

  it('spec-notes W6: the claim of deliveries under an expired lease reads webhook_deliveries_leased_idx', async () => {
    const reads = await readsOf((db) => claimDueDeliveries(db, target.dialect, claimOptions('expired')));
    expectPartialIndexes(reads);
    expect(reads.map((r) => r.index)).toContain('webhook_deliveries_leased_idx');
  });

  it('spec-notes W6: the fan-out takes undispatched outbox events through outbox_undispatched_idx', async () => {
    const reads = await readsOf((db) =>
      target.dialect === 'sqlite'
        ? db.transaction().execute((trx) => claimOutboxEvents(trx, 50, '2026-01-15T12:00:00.000Z'))
        : // Without the pool, the fan-out goes through Kysely (and so through the explaining `db`); with
          // it, the same text runs as a named statement.
          fanOutEvents({ ...database, db, pgPool: undefined }, { clock: new ManualClock() }, 50),
    );
    expectPartialIndexes(reads);
    expect(reads.filter((r) => r.table === 'outbox_events').map((r) => r.index)).toContain('outbox_undispatched_idx');
  });

  it('the backlog gauges (/metrics) count pending deliveries and undispatched events through the partial indexes', async () => {
    const registry = new Registry();
    registerBacklogGauges(registry, { ...database, db: logged }, () => new Date('2026-01-15T12:00:00.000Z'));
    const reads = await readsOf(() => registry.metrics());
    expectPartialIndexes(reads);
  });
});
