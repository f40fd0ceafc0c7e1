import { afterEach, describe, expect, it } from 'vitest';
import { sharedDatabaseUrl, testDatabaseTargets } from '../test-databases.js';
import { type Database, openDatabase } from './database.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';

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
    const { openPostgresTestDatabase } = await import('../test-databases.js');
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

  it.runIf(url)(
    'read their own schema alone: what another schema on the server holds, or drops while they run, is not theirs to read',
    async () => {
      const { sql } = await import('kysely');
      const { openPostgresTestDatabase } = await import('../test-databases.js');
      const ours = await openPostgresTestDatabase(url as string);
      const other = `feira_other_${Date.now().toString(36)}`;
      try {
        // Another schema with a table this one does not have, and one it has.
        await sql`create schema ${sql.id(other)}`.execute(ours.db);
        await sql`create table ${sql.id(other, 'not_ours')} (id int)`.execute(ours.db);
        await sql`create table ${sql.id(other, 'outbox_events')} (id int)`.execute(ours.db);
        const tables = await ours.db.introspection.getTables();
        const schemas = new Set(tables.map((t) => t.schema));
        expect(schemas.size).toBe(1);
        expect(tables.map((t) => t.name)).not.toContain('not_ours');
        // Dropped between reads (as parallel test files and other tenants of a server do): the migrator's reads go on.
        await sql`drop schema ${sql.id(other)} cascade`.execute(ours.db);
        const { migrateToLatest } = await import('./migrate.js');
        expect(await migrateToLatest(ours)).toEqual([]);
      } finally {
        await sql`drop schema if exists ${sql.id(other)} cascade`.execute(ours.db);
        await ours.close();
      }
    },
  );
});

describe.each(testDatabaseTargets())('migrations started by two processes at once on $dialect', (target) => {
  it('both processes start: each migration runs exactly once and both see the schema at head', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const { migrations } = await import('./migrations/index.js');
    const script = fileURLToPath(new URL('../../test/storage/migrate-process.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../../', import.meta.url));

    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    // The database both processes are told to open: on SQLite a file neither has created yet (two
    // `feira start` on an empty data folder), on PostgreSQL an empty schema.
    let env: Record<string, string> = {};
    let empty: Database | null = null;
    let dir: string | null = null;
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
      if (target.dialect === 'sqlite') {
        dir = mkdtempSync(join(tmpdir(), 'feira-migrate-'));
        env = { FEIRA_DATABASE_URL: `sqlite:${join(dir, 'feira.db')}` };
      } else {
        empty = await target.openEmpty();
        env = { FEIRA_DATABASE_URL: (await sharedDatabaseUrl(empty)).url };
      }
      const results = await Promise.all([run(), run()]);
      for (const r of results) expect(r.code, r.err).toBe(0);
      const reports = results.map((r) => JSON.parse(r.out.trim()) as { applied: string[]; pending: string[] });
      // Between them they applied every migration once; afterwards neither saw anything pending.
      expect(reports.flatMap((r) => r.applied).sort()).toEqual(Object.keys(migrations).sort());
      for (const r of reports) expect(r.pending).toEqual([]);
      // …and it was this database they migrated.
      const migrated = empty ?? (await openDatabase(env.FEIRA_DATABASE_URL as string));
      try {
        expect(await pendingMigrations(migrated)).toEqual([]);
      } finally {
        if (migrated !== empty) await migrated.close();
      }
    } finally {
      await empty?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.each(testDatabaseTargets())('an upgrade across migrations 0018 and 0019 on $dialect', (target) => {
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('a delivery log written before them keeps every delivery and attempt in its order, and the fan-out still makes one delivery per event and subscription', async () => {
    const { sql } = await import('kysely');
    const { ManualClock } = await import('../core/clock.js');
    const { cryptoRandom } = await import('../core/random.js');
    const { SecretBox } = await import('../core/secret-box.js');
    const { appendEvent } = await import('../records/outbox.js');
    const { fanOutEvents } = await import('../webhooks/fan-out.js');
    const { signUp } = await import('../webhooks/subscription-store.js');

    // The schema as the previous release left it. Sign-up, events and the fan-out go through this
    // release's own write paths (none of which 0018 or 0019 changed the columns of); the attempts are
    // written with exactly the columns the attempt log had then, so a column a later migration adds
    // to the log does not make this upgrade unreachable.
    database = await target.openEmpty();
    await migrateToLatest(database, { through: '0017-outbox-notify-after-commit' });
    const { db } = database;
    const clock = new ManualClock('2026-11-26T10:00:00.000Z');
    const deps = { clock, random: cryptoRandom, database };
    const at = clock.now().toISOString();
    await db
      .insertInto('sellers')
      .values({ id: 's1', name: 'Loja', login: 'loja', password_hash: 'x', created_at: at })
      .execute();
    await db.insertInto('tenants').values({ id: 't1', seller_id: 's1', name: 'Loja', created_at: at }).execute();
    const box = new SecretBox('upgrade-test-server-secret');
    const input = {
      clientId: 'app',
      tenantId: 't1',
      topics: ['order' as const],
      url: 'https://127.0.0.1:9/hooks',
      version: 'v1' as const,
    };
    await signUp(db, input, { ...deps, box });
    const events: string[] = [];
    for (const recordId of ['r0', 'r1']) {
      const change = {
        tenantId: 't1',
        topic: 'order' as const,
        status: 'CREATION' as const,
        recordId,
        resource: `/v1/orders/${recordId}`,
      };
      events.push(await appendEvent(db, change, deps));
      clock.advance(1_000);
    }
    const lease = { worker: 'w0', leaseUntilIso: new Date(clock.now().getTime() + 10_000).toISOString(), max: 10 };
    const { leased } = await fanOutEvents(database, deps, 10, lease);
    const startedAt = clock.now().toISOString();
    for (const { claim } of leased) {
      await db
        .insertInto('webhook_delivery_attempts')
        .values({
          delivery_id: claim.id,
          attempt: claim.attempts + 1,
          fence: claim.fence,
          worker: 'w0',
          outcome: 'succeeded',
          status_code: 200,
          duration_ms: 3,
          error: null,
          response_body: null,
          request_headers: '{}',
          next_attempt_at: null,
          started_at: startedAt,
        })
        .execute();
    }
    await db
      .updateTable('webhook_deliveries')
      .set({ state: 'succeeded', attempts: 1, lease_owner: null, lease_until: null, delivered_at: startedAt })
      .execute();

    const log = () =>
      db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_delivery_attempts as a', 'a.delivery_id', 'd.id')
        .select(['d.id', 'd.event_id', 'd.state', 'd.event_created_at', 'a.attempt', 'a.outcome'])
        .where('d.tenant_id', '=', 't1')
        .orderBy('d.event_created_at', 'desc')
        .orderBy('d.id', 'desc')
        .execute();
    const written = await log();
    expect(written.map((r) => r.event_id)).toEqual([...events].reverse());

    expect(await migrateToLatest(database, { through: '0019-queue-keys-byte-order' })).toEqual([
      '0018-drop-delivery-pair-unique',
      '0019-queue-keys-byte-order',
    ]);
    expect(await log()).toEqual(written);
    if (target.dialect === 'postgres') {
      // The queue's keys now sort byte by byte, as SQLite's always did.
      const { rows } = await sql<{ column: string; collation: string | null }>`
        select table_name || '.' || column_name as column, collation_name as collation
        from information_schema.columns where table_schema = current_schema() and column_name in ('id', 'delivery_id', 'lease_until')
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

    // Up to head (whatever later migrations add), the log stands as written, and both events handed
    // to the fan-out again: their deliveries stand, so none is made or leased.
    await migrateToLatest(database);
    expect(await pendingMigrations(database)).toEqual([]);
    expect(await log()).toEqual(written);
    await db.updateTable('outbox_events').set({ dispatched_at: null }).execute();
    expect(await fanOutEvents(database, deps, 10, { ...lease, worker: 'w1' })).toMatchObject({ events: 2, leased: [] });
    const count = await db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);
  });

  it('migrating through a migration that does not exist is refused before anything runs', async () => {
    database = await target.openEmpty();
    await expect(migrateToLatest(database, { through: '0099-nothing' })).rejects.toThrow('no migration named 0099-nothing');
    // Not even the first migration ran: its table is not there.
    await expect(database.db.selectFrom('sellers').select('id').execute()).rejects.toThrow(/sellers/);
  });
});
