import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';

/**
 * A bulk load drops the table's secondary indexes, inserts, and builds each
 * once (a sorted build is several times faster than a million random index
 * inserts). Constraint indexes (primary key, unique) stay in place. The
 * indexes come from the database's own catalogue (storage/dialect-adapter.ts).
 */
/** Runs `load` with the table's secondary indexes dropped, then rebuilds them; call it inside one transaction. */
export async function withIndexesRebuiltAfter<DB, T>(
  trx: Kysely<DB>,
  dialect: DialectName,
  table: string,
  load: () => Promise<T>,
): Promise<T> {
  const indexes = await dialectAdapter(dialect).secondaryIndexes(trx, table);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(trx);
  const result = await load();
  // The statements come from the database's own catalogue, never from input.
  for (const index of indexes) await sql.raw(index.createSql).execute(trx);
  return result;
}
