import { randomBytes } from 'node:crypto';
import { type Migration, Migrator } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../../storage/database.js';
import { migrations } from '../../storage/migrations/index.js';
import { type TestDatabaseTarget, testDatabaseTargets } from '../../storage/test-databases.js';

/**
 * `testDatabaseTargets()` with one change on PostgreSQL: the Kysely migrator is
 * told its schema (`migrationTableSchema`). Without it, the migrator looks for
 * its lock table in every schema of the database, finds the one of another
 * test schema open at the same time (a parallel test file, another engineer's
 * run) and then fails with `relation "kysely_migration_lock" does not exist`.
 * The proper fix belongs in storage/migrate.ts; this file can go once it is there.
 */
export function identityTestTargets(): TestDatabaseTarget[] {
  const url = process.env.FEIRA_TEST_DATABASE_URL;
  return testDatabaseTargets().map((target) =>
    target.dialect === 'postgres' && url ? { dialect: 'postgres', open: () => openIsolatedPostgres(url) } : target,
  );
}

async function adminQuery(url: string, query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(query);
  } finally {
    await admin.end();
  }
}

async function openIsolatedPostgres(url: string): Promise<Database> {
  const schema = `feira_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `create schema ${schema}`);
  const drop = () => adminQuery(url, `drop schema if exists ${schema} cascade`);
  let database: Database | undefined;
  try {
    database = await openDatabase(url, { searchPath: schema, poolSize: 5 });
    const migrator = new Migrator({
      db: database.db,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrations).map(([name, factory]) => [name, factory('postgres') as Migration])),
      },
      migrationTableSchema: schema,
      allowUnorderedMigrations: true,
    });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
  } catch (error) {
    await database?.close();
    await drop();
    throw error;
  }
  const opened = database;
  return {
    ...opened,
    close: async () => {
      await opened.close();
      await drop();
    },
  };
}
