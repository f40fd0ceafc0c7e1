import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import { isSqliteBusy } from './database-errors.js';
import { migrations } from './migrations/index.js';
import type { Schema } from './schema.js';

/** Migrations are files compiled into the package (no directory scanning), run at start, idempotent. */
class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Database['dialect']) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, factory] of Object.entries(migrations)) out[name] = factory(this.dialect);
    return out;
  }
}

/**
 * On PostgreSQL, Kysely's migrator must be told which schema holds its own
 * bookkeeping tables: without `migrationTableSchema` its existence check looks
 * in every schema of the database, so a second Feira schema on the same server
 * (parallel test files, a staging copy) makes it skip creating them here and
 * then fail with `relation "kysely_migration_lock" does not exist`.
 */
async function currentSchema(db: Kysely<Schema>, dialect: Database['dialect']): Promise<string | undefined> {
  if (dialect !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

function migrator(db: Kysely<Schema>, dialect: Database['dialect'], schema: string | undefined): Migrator {
  return new Migrator({
    db,
    provider: new StaticProvider(dialect),
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

async function runMigrator(db: Kysely<Schema>, dialect: Database['dialect'], through: string | undefined): Promise<string[]> {
  const runner = migrator(db, dialect, await currentSchema(db, dialect));
  const { error, results } = await (through === undefined ? runner.migrateToLatest() : runner.migrateTo(through));
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Brings the schema to the newest migration. Several processes may start at
 * once (API workers, dispatchers, `feira dispatch` beside `feira start`), so
 * the whole run, including the creation of Kysely's own bookkeeping tables,
 * holds a lock: on PostgreSQL a session advisory lock keyed by the schema; on
 * SQLite, whose DDL Kysely does not wrap in a transaction, one `BEGIN
 * IMMEDIATE` transaction (the file's write lock; the other process waits in
 * its busy timeout). The second process then finds nothing to do.
 *
 * `through` stops after the named migration: the schema an earlier release
 * left, which upgrade tests write data into before migrating the rest.
 */
export async function migrateToLatest(database: Database, options: { through?: string } = {}): Promise<string[]> {
  if (options.through !== undefined && !(options.through in migrations)) {
    throw new Error(`no migration named ${options.through}`);
  }
  return withMigrationLock(database, (conn) => runMigrator(conn, database.dialect, options.through));
}

/**
 * Runs `step` on one connection holding the migration lock (the PostgreSQL
 * advisory lock, SQLite's write lock in one `BEGIN IMMEDIATE` transaction):
 * the numbered migrations, and schema steps that follow them (the tables of
 * record kinds declared as data, records/record-kind-tables.ts).
 */
export async function withMigrationLock<T>(database: Database, step: (conn: Kysely<Schema>) => Promise<T>): Promise<T> {
  if (database.dialect === 'postgres') {
    return database.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(hashtext('feira-migrate:' || current_schema()))`.execute(conn);
      try {
        return await step(conn);
      } finally {
        await sql`select pg_advisory_unlock(hashtext('feira-migrate:' || current_schema()))`.execute(conn);
      }
    });
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await database.db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await step(conn);
          await sql`commit`.execute(conn);
          return result;
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => {});
          throw error;
        }
      });
    } catch (error) {
      // The busy timeout ran out while another process held the lock: try again.
      if (attempt >= 5 || !isSqliteBusy(error)) throw error;
    }
  }
}

/** Migrations this build knows that the database has not run (empty: the schema is at head). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const found = await migrator(database.db, database.dialect, await currentSchema(database.db, database.dialect)).getMigrations();
  return found.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
