import { randomUUID } from 'node:crypto';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../../src/core/config.js';
import { quoteLogInDatabase } from '../../src/shipping/index.js';
import { openSqliteConnection } from '../../src/storage/database.js';
import { RetentionSweeper } from '../../src/storage/retention-sweeper.js';
import type { Schema } from '../../src/storage/schema.js';
import { postgresPlanNodes, sqlitePlan } from '../../src/storage/test-query-plans.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';
import { deliveryId } from '../../src/webhooks/delivery-id.js';
import { retentionRules } from '../../src/workers.js';

// Retention (docs/deploy.md "Retention"): every table that grows with use is
// swept in the background, and nothing still needed is. Each rule is shown on
// rows as the platform writes them, on both databases, by moving the
// platform's clock past the rule's period; the batches are small here (3 rows)
// so that every rule's cursor and "more to do" are crossed.

const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;

describe.each(testDatabaseTargets())('retention sweep ($dialect)', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  const start = '2026-01-15T12:00:00.000Z';

  // One platform for the suite (a fresh database costs seconds); each test starts on empty tables and the same time.
  beforeAll(async () => {
    platform = await createTestPlatform(target, { config: testConfig({ accessTokenTtlSeconds: 7200 }) });
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
  });
  afterAll(async () => {
    await platform?.close();
  });
  beforeEach(async () => {
    platform.clock.set(start);
    const { db } = platform.database;
    for (const table of [
      'webhook_deliveries',
      'webhook_subscriptions',
      'outbox_events',
      'authorization_codes',
      'refresh_tokens',
      'token_families',
      'login_sessions',
      'operator_sessions',
      'auth_throttle',
      'background_leases',
      'store_alerts',
    ] as const) {
      await db.deleteFrom(table).execute();
    }
    await (await platform.app.shipping.quoteLog.store.reader()).deleteFrom('quote_calls').execute();
  });

  function sweeper(policy: Partial<RetentionPolicy> = {}, holder = 'sweeper-a', metrics?: Registry) {
    const context = platform.app.platform;
    const rules = retentionRules(
      { ...context, config: { ...context.config, retention: { ...DEFAULT_RETENTION, ...policy } } },
      platform.app.shipping.quoteLog.store,
    );
    return new RetentionSweeper(
      { database: platform.database, clock: platform.clock, ...(metrics ? { metrics } : {}) },
      { rules, holder, batchRows: 3, intervalMs: 3_600_000 },
    );
  }

  const iso = (ms: number) => new Date(ms).toISOString();
  const at = (offsetMs: number) => iso(platform.clock.now().getTime() + offsetMs);

  /** An outbox event as the platform writes it, fanned out (or not) at its creation. */
  async function event(createdMs: number, dispatched = true): Promise<{ id: string; created_at: string }> {
    const row = {
      id: randomUUID(),
      tenant_id: tenantId,
      topic: 'orders',
      status: 'CREATION',
      record_id: randomUUID(),
      resource: '/seller/v0/orders/x',
      body: '{}',
      created_at: iso(createdMs),
      dispatched_at: dispatched ? iso(createdMs) : null,
    };
    await platform.database.db.insertInto('outbox_events').values(row).execute();
    return row;
  }

  /** A delivery of `ev` in `state`, last changed at `updatedMs`, with two attempts logged. */
  async function delivery(ev: { id: string; created_at: string }, state: 'pending' | 'succeeded' | 'dead', updatedMs: number) {
    const subscription = randomUUID();
    await platform.database.db
      .insertInto('webhook_subscriptions')
      .values({
        id: subscription,
        client_id: subscription,
        tenant_id: tenantId,
        topic: 'orders',
        version: 'v0',
        url: 'https://receiver.example/hook',
        secret_sealed: null,
        previous_secret_sealed: null,
        previous_secret_grace_until: null,
        state: 'active',
        failing_since: null,
        disabled_at: null,
        created_at: ev.created_at,
        updated_at: ev.created_at,
      })
      .execute();
    const id = deliveryId(ev.id, subscription, ev.created_at);
    await platform.database.db
      .insertInto('webhook_deliveries')
      .values({
        id,
        event_id: ev.id,
        subscription_id: subscription,
        tenant_id: tenantId,
        topic: 'orders',
        state,
        next_attempt_at: state === 'pending' ? iso(updatedMs + HOUR_MS) : null,
        lease_owner: null,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        event_created_at: ev.created_at,
        created_at: ev.created_at,
        updated_at: iso(updatedMs),
        delivered_at: state === 'succeeded' ? iso(updatedMs) : null,
      })
      .execute();
    for (const attempt of [1, 2]) {
      await platform.database.db
        .insertInto('webhook_delivery_attempts')
        .values({
          delivery_id: id,
          attempt,
          fence: attempt,
          worker: 'w',
          outcome: 'failed',
          status_code: 500,
          duration_ms: 3,
          error: null,
          response_body: null,
          request_headers: '{}',
          response_headers: null,
          next_attempt_at: null,
          started_at: ev.created_at,
        })
        .execute();
    }
    return id;
  }

  const ids = async (table: 'webhook_deliveries' | 'outbox_events') =>
    (await platform.database.db.selectFrom(table).select('id').execute()).map((row) => row.id).sort();
  const attemptsOf = async (deliveryIdValue: string) =>
    (
      await platform.database.db
        .selectFrom('webhook_delivery_attempts')
        .select('seq')
        .where('delivery_id', '=', deliveryIdValue)
        .execute()
    ).length;

  it('deliveries and their attempts go 30 days after they succeeded or died; a pending one, and one finished since, stay', async () => {
    const t0 = platform.clock.now().getTime();
    const old = await event(t0 - 2 * DAY_MS);
    const succeeded = await delivery(old, 'succeeded', t0);
    const dead = await delivery(old, 'dead', t0);
    // Retried for days: its event is as old as the others', and it may still be sent.
    const pending = await delivery(old, 'pending', t0);
    const finishedLater = await delivery(old, 'dead', t0 + 5 * DAY_MS);
    const many = await Promise.all(Array.from({ length: 5 }, async () => delivery(await event(t0 - DAY_MS), 'succeeded', t0)));

    platform.clock.advance(30 * DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect(await ids('webhook_deliveries')).toHaveLength(9);

    platform.clock.advance(2 * 60_000);
    const swept = await sweeper().sweepOnce();
    expect(swept?.webhook_deliveries).toBe(7);
    expect(await ids('webhook_deliveries')).toEqual([pending, finishedLater].sort());
    for (const gone of [succeeded, dead, ...many]) expect(await attemptsOf(gone)).toBe(0);
    expect(await attemptsOf(pending)).toBe(2);

    platform.clock.advance(5 * DAY_MS);
    await sweeper().sweepOnce();
    expect(await ids('webhook_deliveries')).toEqual([pending]);
  });

  it('a delivery redelivered after it died is pending again and is not swept with the dead ones', async () => {
    const t0 = platform.clock.now().getTime();
    const ev = await event(t0);
    const redelivered = await delivery(ev, 'dead', t0);
    platform.clock.advance(31 * DAY_MS);
    await platform.database.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', attempts: 0, next_attempt_at: at(0), updated_at: at(0) })
      .where('id', '=', redelivered)
      .execute();
    await sweeper().sweepOnce();
    expect(await ids('webhook_deliveries')).toEqual([redelivered]);
    expect(await ids('outbox_events')).toEqual([ev.id]);
  });

  it('outbox events go once fanned out, a day old and with no delivery left; one not yet fanned out stays, whatever its age', async () => {
    const t0 = platform.clock.now().getTime();
    const noSubscriber = await Promise.all(Array.from({ length: 4 }, () => event(t0)));
    const undispatched = await event(t0, false);
    const delivered = await event(t0);
    await delivery(delivered, 'succeeded', t0);
    const young = await event(t0 + 2 * DAY_MS);

    platform.clock.advance(DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect(await ids('outbox_events')).toHaveLength(7);

    platform.clock.advance(2 * 60_000);
    await sweeper().sweepOnce();
    // The delivered event stays while its delivery is kept: a redelivery sends its body.
    expect(await ids('outbox_events')).toEqual([undispatched.id, delivered.id, young.id].sort());
    expect(noSubscriber).toHaveLength(4);

    platform.clock.advance(30 * DAY_MS);
    await sweeper().sweepOnce();
    expect(await ids('outbox_events')).toEqual([undispatched.id]);
  });

  it('codes, refresh tokens and their families go a day after they expired; a superseded token stays until then (reuse is still seen)', async () => {
    const db = platform.database.db;
    const t0 = platform.clock.now().getTime();
    const family = async (id: string) =>
      db
        .insertInto('token_families')
        .values({ id, client_id: 'c', seller_id: 's', created_at: iso(t0), revoked_at: null, revoked_reason: null })
        .execute();
    const code = (hash: string, familyId: string) =>
      db
        .insertInto('authorization_codes')
        .values({
          code_hash: hash,
          family_id: familyId,
          client_id: 'c',
          seller_id: 's',
          redirect_uri: 'https://app.example/cb',
          scope: 'orders:read',
          tenants: '[]',
          code_challenge: null,
          nonce: null,
          auth_time: null,
          created_at: iso(t0),
          expires_at: iso(t0 + 10 * 60_000),
          used_at: null,
        })
        .execute();
    const token = (jti: string, familyId: string, expiresMs: number, superseded: boolean) =>
      db
        .insertInto('refresh_tokens')
        .values({
          jti,
          family_id: familyId,
          parent_jti: null,
          created_at: iso(t0),
          expires_at: iso(expiresMs),
          used_at: null,
          superseded_at: superseded ? iso(t0) : null,
        })
        .execute();
    // An abandoned grant: its code never exchanged.
    await family('abandoned');
    await code('abandoned-code', 'abandoned');
    // A grant refreshed once: the superseded token expires with the first, the live one a month later.
    await family('live');
    await token('superseded', 'live', t0 + 30 * DAY_MS, true);
    await token('current', 'live', t0 + 60 * DAY_MS, false);
    // A grant whose only token expired.
    await family('ended');
    await token('ended-token', 'ended', t0 + 30 * DAY_MS, false);
    const names = async () => ({
      codes: (await db.selectFrom('authorization_codes').select('code_hash').execute()).map((r) => r.code_hash),
      tokens: (await db.selectFrom('refresh_tokens').select('jti').orderBy('jti').execute()).map((r) => r.jti),
      families: (await db.selectFrom('token_families').select('id').orderBy('id').execute()).map((r) => r.id),
    });

    // The code expired 10 minutes in; a day later it goes, and its grant with it.
    platform.clock.advance(10 * 60_000 + DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect((await names()).codes).toEqual(['abandoned-code']);
    platform.clock.advance(2 * 60_000);
    await sweeper().sweepOnce();
    expect(await names()).toEqual({ codes: [], tokens: ['current', 'ended-token', 'superseded'], families: ['ended', 'live'] });

    // 30 days in, the superseded token expires; until a day after, presenting it is still reuse.
    platform.clock.set(iso(t0 + 31 * DAY_MS - 60_000));
    await sweeper().sweepOnce();
    expect((await names()).tokens).toEqual(['current', 'ended-token', 'superseded']);
    platform.clock.set(iso(t0 + 31 * DAY_MS + 60_000));
    await sweeper().sweepOnce();
    expect(await names()).toEqual({ codes: [], tokens: ['current'], families: ['live'] });
  });

  it('a refresh token outlives its expiry by the access-token lifetime when that is longer than the retention period', async () => {
    const db = platform.database.db;
    const t0 = platform.clock.now().getTime();
    await db
      .insertInto('token_families')
      .values({ id: 'f', client_id: 'c', seller_id: 's', created_at: iso(t0), revoked_at: null, revoked_reason: null })
      .execute();
    await db
      .insertInto('refresh_tokens')
      .values({
        jti: 'short',
        family_id: 'f',
        parent_jti: null,
        created_at: iso(t0),
        expires_at: iso(t0 + HOUR_MS),
        used_at: null,
        superseded_at: null,
      })
      .execute();
    // Retention of 1 hour, access tokens of 2: the family must stand until the last access token issued with it expired.
    platform.clock.advance(HOUR_MS + HOUR_MS + 30 * 60_000);
    await sweeper({ expiredHours: 1 }).sweepOnce();
    expect(await db.selectFrom('token_families').select('id').execute()).toEqual([{ id: 'f' }]);
    platform.clock.advance(31 * 60_000);
    await sweeper({ expiredHours: 1 }).sweepOnce();
    expect(await db.selectFrom('token_families').select('id').execute()).toEqual([]);
  });

  it('login and operator sessions go a day after they expired; throttle rows once their window and block are a day past', async () => {
    const db = platform.database.db;
    const t0 = platform.clock.now().getTime();
    await db
      .insertInto('login_sessions')
      .values([
        {
          id_hash: 'expired',
          seller_id: 's',
          created_at: iso(t0),
          expires_at: iso(t0 + HOUR_MS),
          ended_at: null,
          ended_reason: null,
        },
        {
          id_hash: 'long',
          seller_id: 's',
          created_at: iso(t0),
          expires_at: iso(t0 + 7 * DAY_MS),
          ended_at: null,
          ended_reason: null,
        },
      ])
      .execute();
    await db
      .insertInto('operator_sessions')
      .values([
        { id_hash: 'op-ended', created_at: iso(t0), expires_at: iso(t0 + HOUR_MS), ended_at: iso(t0) },
        { id_hash: 'op-long', created_at: iso(t0), expires_at: iso(t0 + 7 * DAY_MS), ended_at: null },
      ])
      .execute();
    await db
      .insertInto('auth_throttle')
      .values([
        { key: 'idle', window_started_at: iso(t0), reserved: 1, failures: 0, blocked_until: null },
        { key: 'blocked', window_started_at: iso(t0), reserved: 5, failures: 9, blocked_until: iso(t0 + 2 * DAY_MS) },
        ...Array.from({ length: 4 }, (_, n) => ({
          key: `addr-${n}`,
          window_started_at: iso(t0),
          reserved: 0,
          failures: 0,
          blocked_until: null,
        })),
      ])
      .execute();
    const keys = async () => ({
      login: (await db.selectFrom('login_sessions').select('id_hash').execute()).map((r) => r.id_hash),
      operator: (await db.selectFrom('operator_sessions').select('id_hash').execute()).map((r) => r.id_hash),
      throttle: (await db.selectFrom('auth_throttle').select('key').orderBy('key').execute()).map((r) => r.key),
    });
    platform.clock.advance(HOUR_MS + DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect((await keys()).login).toHaveLength(2);
    expect((await keys()).operator).toHaveLength(2);
    platform.clock.advance(2 * 60_000);
    await sweeper().sweepOnce();
    expect(await keys()).toEqual({ login: ['long'], operator: ['op-long'], throttle: ['blocked'] });
    platform.clock.set(iso(t0 + 3 * DAY_MS + 60_000));
    await sweeper().sweepOnce();
    expect((await keys()).throttle).toEqual([]);
  });

  it('operational alerts go 30 days after they were made once sent or given up; one still waiting for its next attempt stays', async () => {
    const { db } = platform.database;
    const t0 = platform.clock.now().getTime();
    const alert = (id: string, state: 'sent' | 'given up' | 'waiting') =>
      db
        .insertInto('store_alerts')
        .values({
          id,
          tenant_id: tenantId,
          type: 'endpoint.failing',
          body: '{}',
          attempts: 1,
          next_attempt_at: state === 'waiting' ? iso(t0 + 40 * DAY_MS) : null,
          last_status_code: state === 'sent' ? 200 : 500,
          last_error: null,
          sent_at: state === 'sent' ? iso(t0) : null,
          created_at: iso(t0),
        })
        .execute();
    await alert('sent', 'sent');
    await alert('given-up', 'given up');
    await alert('waiting', 'waiting');
    const alerts = async () => (await db.selectFrom('store_alerts').select('id').orderBy('id').execute()).map((r) => r.id);
    platform.clock.advance(30 * DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect(await alerts()).toEqual(['given-up', 'sent', 'waiting']);
    platform.clock.advance(2 * 60_000);
    await sweeper().sweepOnce();
    expect(await alerts()).toEqual(['waiting']);
  });

  it('quote calls go 30 days after they were made, from wherever the quote log is kept', async () => {
    const quoteLog = platform.app.shipping.quoteLog;
    const t0 = platform.clock.now().getTime();
    const call = (id: string, createdMs: number) =>
      quoteLog.append({
        id,
        tenant_id: tenantId,
        session_id: randomUUID(),
        purpose: 'storefront',
        outcome: 'ok',
        latency_ms: 12,
        http_status: 200,
        detail: null,
        fallback_used: 0,
        gateway_kind: null,
        created_at: iso(createdMs),
      });
    for (let n = 0; n < 7; n++) call(`old-${n}`, t0);
    call('recent', t0 + 10 * DAY_MS);
    await quoteLog.flush();
    const reader = await quoteLog.store.reader();
    const calls = async () => (await reader.selectFrom('quote_calls').select('id').execute()).map((r) => r.id);
    platform.clock.advance(30 * DAY_MS - 60_000);
    await sweeper().sweepOnce();
    expect(await calls()).toHaveLength(8);
    platform.clock.advance(2 * 60_000);
    const registry = new Registry();
    await sweeper({}, 'sweeper-a', registry).sweepOnce();
    expect(await calls()).toEqual(['recent']);
    // The operator sees what went, by table.
    expect(await registry.metrics()).toMatch(/feira_retention_deleted_rows_total\{table="quote_calls"\} 7/);
  });

  it.runIf(target.dialect === 'postgres')(
    'PostgreSQL: a sweep that deleted a large share of a table vacuums it at once, and the table keeps its pages for the next rows (D137)',
    async () => {
      const { db } = platform.database;
      const t0 = platform.clock.now().getTime();
      for (let n = 0; n < 40; n++) await delivery(await event(t0 - DAY_MS), 'succeeded', t0);
      const pages = async (table: string) => {
        const { rows } = await sql<{ n: string }>`select pg_relation_size(to_regclass(${table})) as n`.execute(db);
        return Number(rows[0]?.n);
      };
      const vacuums = async (table: string) => {
        const { rows } = await sql<{ n: string }>`
          select vacuum_count as n from pg_stat_user_tables where relid = to_regclass(${table})`.execute(db);
        return Number(rows[0]?.n);
      };
      const attemptPagesBefore = await pages('webhook_delivery_attempts');
      const vacuumsBefore = await vacuums('webhook_delivery_attempts');
      platform.clock.advance(31 * DAY_MS);
      const registry = new Registry();
      const swept = await sweeper({}, 'sweeper-a', registry).sweepOnce();
      expect(swept?.webhook_deliveries).toBe(40);
      const metrics = await registry.metrics();
      for (const table of ['webhook_deliveries', 'webhook_delivery_attempts', 'outbox_events'])
        expect(metrics).toMatch(new RegExp(`feira_retention_vacuums_total\\{table="${table}"\\} 1`));
      expect(await vacuums('webhook_delivery_attempts')).toBe(vacuumsBefore + 1);
      // Every row went, yet the file keeps its pages: giving them back would lock out the inserts, and the next rows fill them.
      expect(await pages('webhook_delivery_attempts')).toBe(attemptPagesBefore);
      const { rows } = await sql<{ options: string[] | null }>`
        select reloptions as options from pg_class where oid = to_regclass('webhook_delivery_attempts')`.execute(db);
      expect(rows[0]?.options).toContain('vacuum_truncate=false');
      // Nothing left to delete: the next pass vacuums nothing.
      await sweeper({}, 'sweeper-a', registry).sweepOnce();
      expect(await registry.metrics()).toMatch(/feira_retention_vacuums_total\{table="webhook_delivery_attempts"\} 1/);
    },
  );

  it('a period of 0 keeps those rows for ever', async () => {
    const t0 = platform.clock.now().getTime();
    const ev = await event(t0);
    await delivery(ev, 'succeeded', t0);
    platform.clock.advance(400 * DAY_MS);
    await sweeper({ deliveryDays: 0 }).sweepOnce();
    expect(await ids('webhook_deliveries')).toHaveLength(1);
    expect(await ids('outbox_events')).toEqual([ev.id]);
  });

  it("the dispatcher role runs the sweep (feira start, feira dispatch), over the app's quote log", async () => {
    const running = await createTestPlatform(target, { roles: { api: true, dispatcher: true } });
    try {
      const sweep = running.workers?.retention;
      expect(sweep).toBeTruthy();
      // The pass it runs at start finds nothing; it must be over before the clock moves past the call's 30 days.
      await sweep?.firstPass();
      running.app.shipping.quoteLog.append({
        id: randomUUID(),
        tenant_id: (await running.createSeller()).tenantIds[0] as string,
        session_id: randomUUID(),
        purpose: 'storefront',
        outcome: 'ok',
        latency_ms: 5,
        http_status: 200,
        detail: null,
        fallback_used: 0,
        gateway_kind: null,
        created_at: running.clock.now().toISOString(),
      });
      await running.app.shipping.quoteLog.flush();
      running.clock.advance(31 * DAY_MS);
      // This pass finds the call past its 30 days.
      expect((await sweep?.sweepOnce())?.quote_calls).toBe(1);
    } finally {
      await running.close();
    }
  });

  it('one process sweeps at a time: another finds the lease held until it is given back or runs out', async () => {
    const t0 = platform.clock.now().getTime();
    await delivery(await event(t0), 'succeeded', t0);
    platform.clock.advance(31 * DAY_MS);
    const a = sweeper({}, 'process-a');
    const b = sweeper({}, 'process-b');
    expect(await a.sweepOnce()).not.toBeNull();
    // a holds the lease for a minute after its last batch.
    expect(await b.sweepOnce()).toBeNull();
    platform.clock.advance(61_000);
    expect(await b.sweepOnce()).not.toBeNull();
    expect(await a.sweepOnce()).toBeNull();
    // Stopping gives the lease back at once.
    await b.stop();
    expect(await a.sweepOnce()).not.toBeNull();
  });
});

// Each batch must read only what it deletes (or a bounded stretch of a key), through an index: a batch
// that scanned its table would cost as much as the table is large, and on SQLite hold the one
// connection that long. Checked on the query plans of every statement a sweep runs (on PostgreSQL with
// sequential and bitmap scans off, so the plan answers "can an index serve this?").
describe.each(testDatabaseTargets())('retention statements read through indexes ($dialect query plans)', (target) => {
  it('no statement of a sweep reads a whole table', async () => {
    const platform = await createTestPlatform(target);
    const captured: CompiledQuery[] = [];
    const log = (event: { level: string; query: CompiledQuery }) => {
      if (event.level === 'query') captured.push(event.query);
    };
    const database = platform.database;
    let logged: Kysely<Schema>;
    let explain: (query: CompiledQuery) => Promise<Array<{ table: string; read: string }>>;
    let closeLogged = async () => {};
    if (database.sqliteFile) {
      const raw = openSqliteConnection(database.sqliteFile);
      logged = new Kysely<Schema>({ dialect: new SqliteDialect({ database: raw }), log });
      closeLogged = () => logged.destroy();
      explain = async (query) =>
        sqlitePlan(raw, query)
          .filter((detail) => /^(SCAN|SEARCH) /.test(detail))
          .map((detail) => ({ table: detail.split(' ')[1] as string, read: detail }));
    } else {
      const pool = database.pgPool as NonNullable<typeof database.pgPool>;
      logged = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }), log });
      explain = async (query) => {
        const client = await pool.connect();
        try {
          await client.query('set enable_seqscan = off');
          await client.query('set enable_bitmapscan = off');
          return (await postgresPlanNodes(client, query))
            .filter((node) => node['Node Type'].endsWith('Scan') && node['Relation Name'])
            .map((node) => ({
              table: node['Relation Name'] as string,
              read: `${node['Node Type']} ${node['Index Name'] ?? ''}`,
            }));
        } finally {
          await client.query('reset all');
          client.release();
        }
      };
    }
    try {
      const context = platform.app.platform;
      const loggedDatabase = { ...database, db: logged };
      const rules = retentionRules({ ...context, database: loggedDatabase }, quoteLogInDatabase(loggedDatabase));
      // Rows for every rule to find, so that each one's delete runs too.
      const db = database.db;
      const t0 = platform.clock.now().getTime();
      const iso = (ms: number) => new Date(ms).toISOString();
      const tenant = (await platform.createSeller()).tenantIds[0] as string;
      await db
        .insertInto('outbox_events')
        .values({
          id: randomUUID(),
          tenant_id: tenant,
          topic: 'orders',
          status: 'CREATION',
          record_id: 'r',
          resource: '/r',
          body: '{}',
          created_at: iso(t0),
          dispatched_at: iso(t0),
        })
        .execute();
      await db
        .insertInto('token_families')
        .values({ id: 'f', client_id: 'c', seller_id: 's', created_at: iso(t0), revoked_at: null, revoked_reason: null })
        .execute();
      await db
        .insertInto('auth_throttle')
        .values({ key: 'k', window_started_at: iso(t0), reserved: 1, failures: 0, blocked_until: null })
        .execute();
      await db
        .insertInto('store_alerts')
        .values({
          id: 'a',
          tenant_id: tenant,
          type: 'endpoint.failing',
          body: '{}',
          attempts: 1,
          next_attempt_at: null,
          last_status_code: 200,
          last_error: null,
          sent_at: iso(t0),
          created_at: iso(t0),
        })
        .execute();
      platform.clock.advance(40 * DAY_MS);
      const sweeper = new RetentionSweeper(
        { database: loggedDatabase, clock: platform.clock },
        { rules, holder: 'h', batchRows: 3, intervalMs: 1 },
      );
      const swept = await sweeper.sweepOnce();
      expect(swept).toMatchObject({ outbox_events: 1, token_families: 1, auth_throttle: 1, store_alerts: 1 });
      expect(Object.keys(swept ?? {}).sort()).toEqual([
        'auth_throttle',
        'authorization_codes',
        'login_sessions',
        'operator_sessions',
        'outbox_events',
        'quote_calls',
        'refresh_tokens',
        'store_alerts',
        'token_families',
        'webhook_deliveries',
      ]);
      const reads = [];
      for (const query of captured) {
        // A VACUUM reads its table by design (on PostgreSQL, after a pass that deleted a large share of it).
        if (/^\s*(insert|update|vacuum)/i.test(query.sql)) continue;
        for (const read of await explain(query)) reads.push({ ...read, sql: query.sql });
      }
      expect(reads.length).toBeGreaterThan(10);
      for (const read of reads) {
        // SQLite: "SEARCH" is an index (or key) lookup or range; a "SCAN" reads the whole table. PostgreSQL: no Seq Scan.
        expect(read.read, read.sql).toMatch(target.dialect === 'sqlite' ? /^SEARCH / : /^Index (Only )?Scan /);
      }
    } finally {
      await closeLogged();
      await platform.close();
    }
  });
});
