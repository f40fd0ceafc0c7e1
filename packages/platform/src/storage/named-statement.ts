import type { CompiledQuery, Kysely } from 'kysely';
import type pg from 'pg';

/**
 * SQLSTATEs by which a server connection refuses a named statement before
 * running it: it does not know the name (26000) or knows it already (42P05),
 * as when a transaction-mode PgBouncer before 1.21, or one without
 * `max_prepared_statements`, hands each statement to another server
 * connection; or the table changed under the plan (0A000, "cached plan must
 * not change result type"). Only single statements are run here, so nothing
 * of a refused one was committed.
 */
const REFUSED = new Set(['26000', '42P05', '0A000']);

/** Pools that refused a named statement once: their statements go unnamed from then on. */
const unnamedOnly = new WeakSet<pg.Pool>();

/**
 * Runs one statement as a named prepared statement: each connection of the
 * pool parses and plans it once, then binds and runs it (`pg` keeps the names
 * each connection has prepared). The text must be the same on every call under
 * one name. Where named statements are refused, the pool falls back to unnamed
 * ones (planned at every call, as Kysely runs everything else) and says so
 * through `namedStatementsRefused`.
 */
export async function queryNamed<R>(pool: pg.Pool, name: string, query: CompiledQuery<R>): Promise<R[]> {
  const values = [...query.parameters];
  if (!unnamedOnly.has(pool)) {
    try {
      return (await pool.query<R & pg.QueryResultRow>({ name, text: query.sql, values })).rows;
    } catch (error) {
      if (!REFUSED.has(String((error as { code?: unknown }).code))) throw error;
      unnamedOnly.add(pool);
    }
  }
  return (await pool.query<R & pg.QueryResultRow>({ text: query.sql, values })).rows;
}

/** Whether this pool fell back to unnamed statements (diagnostics and tests). */
export function namedStatementsRefused(pool: pg.Pool): boolean {
  return unnamedOnly.has(pool);
}

/**
 * Runs `query` where the database is: on PostgreSQL as the named statement `name` (`queryNamed`), on SQLite
 * through Kysely (its text finds its prepared statement in the connection's cache). For the hot paths'
 * statements compiled once (statement-shapes.ts): the bucket take, each token grant's one statement.
 */
export async function runNamed<R, DB>(
  database: { db: Kysely<DB>; pgPool?: pg.Pool | undefined },
  name: string,
  query: CompiledQuery<R>,
): Promise<R[]> {
  return database.pgPool ? queryNamed(database.pgPool, name, query) : (await database.db.executeQuery(query)).rows;
}
