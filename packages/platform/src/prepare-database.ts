import { BUILT_IN_RECORD_KINDS, createRecordKindTables, type RecordKindRegistry } from './records/index.js';
import { type Database, type OpenDatabaseOptions, openDatabase } from './storage/database.js';
import { migrateToLatest, withMigrationLock } from './storage/migrate.js';

export interface PrepareDatabaseOptions {
  /** The record kinds whose tables declared as data must exist (default: the platform's own). */
  recordKinds?: RecordKindRegistry;
  /**
   * Run the numbered migrations (default). `false` takes the database as its
   * opener left it (a test that migrated it, or one that checks a schema an
   * earlier release left); the declared tables are still created.
   */
  migrate?: boolean;
  /** How a URL is opened (a lost PostgreSQL connection's log, a test schema's search path, the pool size). */
  open?: OpenDatabaseOptions;
}

/**
 * The one way a database becomes one Feira can run on: opened (from a URL),
 * the numbered migrations (storage/migrations/), then the tables of the
 * registered record kinds declared as data (D90), under the same lock. A
 * database given open is prepared in place and stays its opener's to close;
 * one opened here is closed again if its preparation fails.
 * `createPlatform`, `feira seed` and the test databases all go through it.
 */
export async function prepareDatabase(source: string | Database, options: PrepareDatabaseOptions = {}): Promise<Database> {
  if (typeof source !== 'string') {
    await prepareSchema(source, options);
    return source;
  }
  const database = await openDatabase(source, options.open ?? {});
  try {
    await prepareSchema(database, options);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

async function prepareSchema(database: Database, options: PrepareDatabaseOptions): Promise<void> {
  if (options.migrate !== false) await migrateToLatest(database);
  const recordKinds = options.recordKinds ?? BUILT_IN_RECORD_KINDS;
  if (recordKinds.kinds.some((kind) => kind.storage !== undefined)) {
    await withMigrationLock(database, (conn) => createRecordKindTables(conn, database.dialect, recordKinds));
  }
}
