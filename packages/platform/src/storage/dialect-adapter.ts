import { type QueryExecutorProvider, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { ASYNC_COMMIT_SQL } from './async-commit.js';
import type { Database, DialectName } from './database.js';

/** A secondary (non-constraint) index of a table: its name and the statement that builds it again. */
interface SecondaryIndex {
  name: string;
  createSql: string;
}

/**
 * What differs between SQLite and PostgreSQL, said once, as what each can do
 * (after Kysely's own DialectAdapter): a store asks `dialectAdapter(database)`
 * a question ("may one statement insert and read back?", "lock the rows a
 * claim takes") and never tests the dialect's name. The SQL of a capability
 * stays in the capability; only the switches and the catalogue queries are here.
 */
export interface DialectAdapter {
  readonly name: DialectName;
  /**
   * One statement may insert rows and use them (`WITH x AS (INSERT … RETURNING …) …`):
   * PostgreSQL. A store may then write a row and its companions in one round trip;
   * SQLite's WITH takes no INSERT, so it writes them in one transaction instead.
   */
  readonly supportsWritableCte: boolean;
  /**
   * The column type of text that compares byte by byte (SQLite's BINARY,
   * PostgreSQL's `collate "C"`), so a sort, its keyset cursor and its index
   * agree whatever the server's default collation (as migration 0003 writes it).
   */
  readonly byteOrderText: RawBuilder<unknown>;
  /**
   * The rows a claim selects are locked and skipped by concurrent claimers
   * (`FOR UPDATE SKIP LOCKED`: PostgreSQL). SQLite has one writer at a time, so
   * a single claiming statement is atomic already and the query is unchanged.
   */
  lockForClaim<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * The current transaction commits without waiting for its WAL flush
   * (storage/async-commit.ts: only for writes that are redone when undone).
   * SQLite commits this way already (`synchronous = NORMAL`).
   */
  relaxCommitDurability(trx: QueryExecutorProvider): Promise<void>;
  /** Inside a bulk load's one transaction: more memory for its index builds (PostgreSQL; docs/decisions.md D26). */
  prepareBulkLoad(trx: QueryExecutorProvider): Promise<void>;
  /** Runs a bulk load with the connection's load settings (SQLite: a larger page cache, temp data in memory), then restores them. */
  withBulkLoadSettings<T>(db: QueryExecutorProvider, work: () => Promise<T>): Promise<T>;
  /** The table's secondary indexes (constraint indexes excluded), as the database's catalogue states them. */
  secondaryIndexes(db: QueryExecutorProvider, table: string): Promise<SecondaryIndex[]>;
}

/**
 * SQLite settings for a bulk load, restored after: a larger page cache keeps the
 * hot index pages in memory, and the index rebuild's sorter works in memory
 * instead of temporary files. WAL and synchronous stay as opened: loaded data
 * is as durable as any other commit.
 */
const SQLITE_LOAD_PRAGMAS = { cache_size: -131072, temp_store: 2 } as const;

const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  supportsWritableCte: false,
  byteOrderText: sql`text`,
  lockForClaim: (query) => query,
  relaxCommitDurability: async () => {},
  prepareBulkLoad: async () => {},
  async withBulkLoadSettings(db, work) {
    const previous: Array<[string, number]> = [];
    for (const [name, value] of Object.entries(SQLITE_LOAD_PRAGMAS)) {
      const current = await sql<Record<string, number>>`${sql.raw(`pragma ${name}`)}`.execute(db);
      previous.push([name, Number(current.rows[0]?.[name])]);
      await sql.raw(`pragma ${name} = ${value}`).execute(db);
    }
    try {
      return await work();
    } finally {
      for (const [name, value] of previous) await sql.raw(`pragma ${name} = ${value}`).execute(db);
    }
  },
  async secondaryIndexes(db, table) {
    const result = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
    return result.rows.map((row) => ({ name: row.name, createSql: row.sql }));
  },
};

const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  supportsWritableCte: true,
  byteOrderText: sql`text collate "C"`,
  lockForClaim: (query) => query.forUpdate().skipLocked(),
  async relaxCommitDurability(trx) {
    await sql.raw(`select ${ASYNC_COMMIT_SQL}`).execute(trx);
  },
  async prepareBulkLoad(trx) {
    // Each index is built in memory up to maintenance_work_mem, raised for this transaction only (D26).
    await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
  },
  withBulkLoadSettings: (_db, work) => work(),
  async secondaryIndexes(db, table) {
    // A constraint's index is matched by oid, not by name: every test schema has constraints of the same names.
    const result = await sql<{ name: string; sql: string }>`
      select i.indexname as name, i.indexdef as sql from pg_indexes i
      where i.schemaname = current_schema() and i.tablename = ${table}
        and not exists (select 1 from pg_constraint c
          where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`.execute(db);
    return result.rows.map((row) => ({ name: row.name, createSql: row.sql }));
  },
};

/** The adapter of a database (or of a dialect's name). */
export function dialectAdapter(database: Pick<Database, 'dialect'> | DialectName): DialectAdapter {
  const name = typeof database === 'string' ? database : database.dialect;
  return name === 'postgres' ? postgresAdapter : sqliteAdapter;
}
