import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { prepareDatabase } from './prepare-database.js';
import { type Database, type DialectName, openDatabase } from './storage/database.js';

/**
 * One database a test suite runs against. `open()` gives a fresh, isolated
 * database prepared as `feira start` prepares one (`prepareDatabase`: the
 * migrations and the platform's declared tables); `openEmpty()` one nothing has run on.
 */
export interface TestDatabaseTarget {
  dialect: DialectName;
  open(): Promise<Database>;
  openEmpty(): Promise<Database>;
}

/**
 * Every storage test runs on SQLite always, and on PostgreSQL when
 * FEIRA_TEST_DATABASE_URL is set. CI sets it: an unreachable server then fails
 * the tests instead of skipping them.
 */
export function testDatabaseTargets(): TestDatabaseTarget[] {
  const targets: TestDatabaseTarget[] = [
    { dialect: 'sqlite', open: () => openSqliteTestDatabase(), openEmpty: () => openSqliteTestDatabase({ migrate: false }) },
  ];
  const pgUrl = process.env.FEIRA_TEST_DATABASE_URL;
  if (pgUrl) {
    targets.push({
      dialect: 'postgres',
      open: () => openPostgresTestDatabase(pgUrl),
      openEmpty: () => openPostgresTestDatabase(pgUrl, { migrate: false }),
    });
  }
  return targets;
}

export async function openSqliteTestDatabase(options: { migrate?: boolean } = {}): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'feira-test-'));
  const file = join(dir, 'feira.db');
  const database = await openDatabase(`sqlite:${file}`);
  if (options.migrate !== false) await prepareDatabase(database);
  return {
    ...database,
    close: async () => {
      await database.close();
      // With its -wal and -shm, and any side file beside it (the quote log's, shipping/quote-log-file.ts).
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh schema per database, dropped on close, so parallel test files never see each other's rows. */
export async function openPostgresTestDatabase(
  url: string,
  options: { poolSize?: number; migrate?: boolean } = {},
): Promise<Database> {
  const schema = `feira_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const database = await openDatabase(url, { searchPath: schema, poolSize: options.poolSize ?? 5 });
  const dropSchema = async () => {
    const cleanup = new pg.Client({ connectionString: url });
    await cleanup.connect();
    try {
      await cleanup.query(`drop schema if exists ${schema} cascade`);
    } finally {
      await cleanup.end();
    }
  };
  try {
    if (options.migrate !== false) await prepareDatabase(database);
  } catch (error) {
    // Leave nothing behind when a test database cannot be prepared.
    await database.close();
    await dropSchema();
    throw error;
  }
  return {
    ...database,
    close: async () => {
      await database.close();
      await dropSchema();
    },
  };
}

/**
 * How another process (a `feira start` child, a test script) opens the same
 * test database: SQLite's file, or the PostgreSQL server its pool connects to
 * with the test's schema as its search_path, carried in the URL (libpq's
 * `options`), which `openDatabase`, and so `feira start`, take as it is.
 * `schema` is that schema (null on SQLite).
 */
export async function sharedDatabaseUrl(database: Database): Promise<{ url: string; schema: string | null }> {
  if (database.dialect === 'sqlite') {
    if (!database.sqliteFile) throw new Error('an in-memory SQLite database cannot be shared with another process');
    return { url: `sqlite:${database.sqliteFile}`, schema: null };
  }
  const server = database.pgPool?.options.connectionString;
  if (!server) throw new Error('the test database has no connection string to share');
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('the test database has no current schema');
  const url = new URL(server);
  // Any options the server's URL carries already are kept; a later -c wins over an earlier one.
  const options = [url.searchParams.get('options'), `-c search_path=${schema}`].filter(Boolean).join(' ');
  url.searchParams.set('options', options);
  return { url: url.toString(), schema };
}
