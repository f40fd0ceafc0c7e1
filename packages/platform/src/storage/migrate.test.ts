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
