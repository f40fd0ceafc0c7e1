import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

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
async function currentSchema(database: Database): Promise<string | undefined> {
  if (database.dialect !== 'postgres') return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  return rows[0]?.schema;
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  const schema = await currentSchema(database);
  const migrator = new Migrator({
    db: database.db,
    provider: new StaticProvider(database.dialect),
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
