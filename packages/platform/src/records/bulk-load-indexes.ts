import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../storage/database.js';

/**
 * A table's secondary indexes as the CREATE INDEX statements the database
 * itself reports, so a bulk load can drop them, insert, and build each once
 * (a sorted build is several times faster than a million random index
 * inserts). Constraint indexes (primary key, unique) stay in place. The only
 * dialect-specific SQL of the seeder lives here.
 */
export interface SecondaryIndex {
  name: string;
  createSql: string;
}

export async function secondaryIndexes<DB>(db: Kysely<DB>, dialect: DialectName, table: string): Promise<SecondaryIndex[]> {
  if (dialect === 'sqlite') {
    const result = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
    return result.rows.map((row) => ({ name: row.name, createSql: row.sql }));
  }
  // A constraint's index is matched by oid, not by name: every test schema has constraints of the same names.
  const result = await sql<{ name: string; sql: string }>`
    select i.indexname as name, i.indexdef as sql from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = ${table}
      and not exists (select 1 from pg_constraint c
        where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`.execute(db);
  return result.rows.map((row) => ({ name: row.name, createSql: row.sql }));
}

/** Runs `load` with the table's secondary indexes dropped, then rebuilds them; call it inside one transaction. */
export async function withIndexesRebuiltAfter<DB, T>(
  trx: Kysely<DB>,
  dialect: DialectName,
  table: string,
  load: () => Promise<T>,
): Promise<T> {
  const indexes = await secondaryIndexes(trx, dialect, table);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(trx);
  const result = await load();
  // The statements come from the database's own catalogue, never from input.
  for (const index of indexes) await sql.raw(index.createSql).execute(trx);
  return result;
}
