import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from './database.js';
import { migrateToLatest } from './migrate.js';
import { testDatabaseTargets } from './test-databases.js';

describe.each(testDatabaseTargets())('migrations on $dialect', (target) => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('creates every table, and running them again changes nothing (idempotent at start)', async () => {
    database = await target.open();
    const tables = (await database.db.introspection.getTables()).map((t) => t.name);
    for (const table of [
      'sellers',
      'tenants',
      'clients',
      'signing_keys',
      'token_families',
      'orders',
      'products',
      'tickets',
      'transactions',
      'outbox_events',
    ]) {
      expect(tables).toContain(table);
    }
    expect(await migrateToLatest(database)).toEqual([]);
  });

  it('gives outbox events increasing sequence numbers (serial key on both dialects)', async () => {
    database = await target.open();
    for (const id of ['a', 'b']) {
      await database.db
        .insertInto('outbox_events')
        .values({
          id,
          tenant_id: 't',
          topic: 'order',
          status: 'CREATION',
          record_id: 'r',
          resource: '/v1/orders/r',
          body: '{}',
          created_at: '2026-01-01T00:00:00.000Z',
          dispatched_at: null,
        })
        .execute();
    }
    const rows = await database.db.selectFrom('outbox_events').select(['id', 'seq']).orderBy('seq').execute();
    expect(rows.map((r) => r.id)).toEqual(['a', 'b']);
    expect(typeof rows[0]?.seq).toBe('number');
    expect(rows[1]!.seq).toBeGreaterThan(rows[0]!.seq);
  });
});

describe('migrations on PostgreSQL beside another Feira schema', () => {
  const url = process.env.FEIRA_TEST_DATABASE_URL;
  it.runIf(url)('keep their bookkeeping tables in their own schema, so a second schema on the server migrates too', async () => {
    const { openPostgresTestDatabase } = await import('./test-databases.js');
    // Two schemas open at once on one server: before migrationTableSchema was set,
    // the second failed with `relation "kysely_migration_lock" does not exist`.
    const first = await openPostgresTestDatabase(url as string);
    try {
      const second = await openPostgresTestDatabase(url as string);
      try {
        const tables = (await second.db.introspection.getTables()).map((t) => t.name);
        expect(tables).toContain('outbox_events');
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});

describe.each(testDatabaseTargets())('migrations started by two processes at once on $dialect', (target) => {
  it('both processes start: each migration runs exactly once and both see the schema at head', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { randomBytes } = await import('node:crypto');
    const pg = (await import('pg')).default;
    const { migrations } = await import('./migrations/index.js');
    const script = fileURLToPath(new URL('../../test/storage/migrate-process.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../../', import.meta.url));

    let env: Record<string, string>;
    let cleanup: () => Promise<void>;
    if (target.dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'feira-migrate-'));
      env = { FEIRA_DATABASE_URL: `sqlite:${join(dir, 'feira.db')}` };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const url = process.env.FEIRA_TEST_DATABASE_URL as string;
      const schema = `feira_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      env = { FEIRA_DATABASE_URL: url, FEIRA_PG_SCHEMA: schema };
      cleanup = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      };
    }
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], {
          cwd: root,
          env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.typecheck.json', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        child.stderr.on('data', (c: Buffer) => {
          err += c.toString();
        });
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    try {
      const results = await Promise.all([run(), run()]);
      for (const r of results) expect(r.code, r.err).toBe(0);
      const reports = results.map((r) => JSON.parse(r.out.trim()) as { applied: string[]; pending: string[] });
      // Between them they applied every migration once; afterwards neither saw anything pending.
      expect(reports.flatMap((r) => r.applied).sort()).toEqual(Object.keys(migrations).sort());
      for (const r of reports) expect(r.pending).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 120_000);
});

describe.each(testDatabaseTargets())('an upgrade across migrations 0018 and 0019 on $dialect', (target) => {
  it('issue 22: a delivery log written before them keeps every delivery and attempt in its order, and the fan-out still makes one delivery per event and subscription', async () => {
    const { randomBytes } = await import('node:crypto');
    const { Migrator, sql } = await import('kysely');
    const pg = (await import('pg')).default;
    const { openDatabase } = await import('./database.js');
    const { migrations } = await import('./migrations/index.js');
    const { fanOutEvents } = await import('../webhooks/fan-out.js');
    const { deliveryId } = await import('../webhooks/delivery-id.js');

    let url: string;
    let schema: string | undefined;
    let cleanup: () => Promise<void>;
    if (target.dialect === 'sqlite') {
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = mkdtempSync(join(tmpdir(), 'feira-upgrade-'));
      url = `sqlite:${join(dir, 'feira.db')}`;
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      url = process.env.FEIRA_TEST_DATABASE_URL as string;
      const name = `feira_test_${randomBytes(6).toString('hex')}`;
      schema = name;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema ${name}`);
      await admin.end();
      cleanup = async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists ${name} cascade`);
        await client.end();
      };
    }
    const database = await openDatabase(url, schema ? { searchPath: schema } : {});
    try {
      const { db } = database;
      // The schema as the previous release left it: every migration before 0018.
      const before = Object.fromEntries(
        Object.entries(migrations)
          .filter(([name]) => name < '0018')
          .map(([name, factory]) => [name, factory(database.dialect)]),
      );
      const old = await new Migrator({
        db,
        provider: { getMigrations: async () => before },
        allowUnorderedMigrations: true,
        ...(schema ? { migrationTableSchema: schema } : {}),
      }).migrateToLatest();
      expect(old.error).toBeUndefined();

      const at = '2026-11-26T10:00:00.000Z';
      await db
        .insertInto('sellers')
        .values({ id: 's1', name: 'Loja', login: 'loja', password_hash: 'x', created_at: at })
        .execute();
      await db.insertInto('tenants').values({ id: 't1', seller_id: 's1', name: 'Loja', created_at: at }).execute();
      await db
        .insertInto('webhook_subscriptions')
        .values({
          id: 'sub-1',
          client_id: 'app',
          tenant_id: 't1',
          topic: 'order',
          version: 'v1',
          url: 'https://127.0.0.1:9/hooks',
          secret_sealed: null,
          previous_secret_sealed: null,
          previous_secret_grace_until: null,
          state: 'active',
          failing_since: null,
          disabled_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const events = ['0190a6c8-0000-7000-8000-00000000000a', '0190a6c8-0000-7000-8000-00000000000b'];
      for (const [i, id] of events.entries()) {
        const created = `2026-11-26T10:00:0${i}.000Z`;
        await db
          .insertInto('outbox_events')
          .values({
            id,
            tenant_id: 't1',
            topic: 'order',
            status: 'CREATION',
            record_id: `r${i}`,
            resource: `/v1/orders/r${i}`,
            body: `{"n":${i}}`,
            created_at: created,
            dispatched_at: at,
          })
          .execute();
        const delivery = deliveryId(id, 'sub-1', created);
        await db
          .insertInto('webhook_deliveries')
          .values({
            id: delivery,
            event_id: id,
            subscription_id: 'sub-1',
            tenant_id: 't1',
            topic: 'order',
            state: 'succeeded',
            attempts: 1,
            next_attempt_at: null,
            lease_owner: null,
            lease_until: null,
            fence: 1,
            last_status_code: 200,
            last_error: null,
            event_created_at: created,
            created_at: created,
            updated_at: created,
            delivered_at: created,
          })
          .execute();
        await db
          .insertInto('webhook_delivery_attempts')
          .values({
            delivery_id: delivery,
            attempt: 1,
            fence: 1,
            worker: 'w0',
            outcome: 'succeeded',
            status_code: 200,
            duration_ms: 3,
            error: null,
            response_body: null,
            request_headers: '{}',
            next_attempt_at: null,
            started_at: created,
          })
          .execute();
      }
      const log = () =>
        db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_delivery_attempts as a', 'a.delivery_id', 'd.id')
          .select(['d.id', 'd.event_id', 'd.state', 'd.created_at', 'a.attempt', 'a.outcome'])
          .where('d.tenant_id', '=', 't1')
          .orderBy('d.created_at', 'desc')
          .orderBy('d.id', 'desc')
          .execute();
      const written = await log();
      expect(written.map((r) => r.event_id)).toEqual([...events].reverse());

      expect(await migrateToLatest(database)).toEqual(['0018-drop-delivery-pair-unique', '0019-queue-keys-byte-order']);
      expect(await log()).toEqual(written);
      if (schema) {
        // PostgreSQL: the queue's keys now sort byte by byte, as SQLite's always did.
        const { rows } = await sql<{ column: string; collation: string | null }>`
          select table_name || '.' || column_name as column, collation_name as collation
          from information_schema.columns where table_schema = ${schema} and column_name in ('id', 'delivery_id', 'lease_until')
            and table_name in ('outbox_events', 'webhook_deliveries', 'webhook_delivery_attempts')
          order by 1`.execute(db);
        expect(rows).toEqual(
          [
            'outbox_events.id',
            'webhook_deliveries.id',
            'webhook_deliveries.lease_until',
            'webhook_delivery_attempts.delivery_id',
          ].map((column) => ({ column, collation: 'C' })),
        );
      }

      // Both events handed to the fan-out again: their deliveries stand, so none is made or leased.
      await db.updateTable('outbox_events').set({ dispatched_at: null }).execute();
      const lease = { worker: 'w1', leaseUntilIso: '2026-11-26T10:01:00.000Z', max: 10 };
      const again = await fanOutEvents(database, { clock: { now: () => new Date(at) } }, 10, lease);
      expect(again).toMatchObject({ events: 2, leased: [] });
      const count = await db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(2);
    } finally {
      await database.close();
      await cleanup();
    }
  });
});
