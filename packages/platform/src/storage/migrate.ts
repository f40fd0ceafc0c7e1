import { type Migration, type MigrationProvider, Migrator } from 'kysely';
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

export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: new StaticProvider(database.dialect),
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
