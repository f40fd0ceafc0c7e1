import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';
import { BoundedCache } from '../core/bounded-cache.js';

/** Distinct SQL texts kept prepared. Queries with `IN (?, ?, …)` lists vary in text, so the cache is bounded. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * The better-sqlite3 handle Kysely talks to, with prepared statements reused
 * per SQL text. Kysely's SQLite driver prepares every query afresh, and
 * compiling a statement was the largest single item in the quote path's CPU
 * profile (docs/decisions.md D20). Reuse is safe here: Kysely's SQLite driver runs one
 * query at a time on its single connection (a mutex), so a statement is never
 * used by two queries at once, and SQLite re-prepares a statement by itself
 * after a schema change.
 */
export function withStatementCache(sqlite: SqliteDatabase.Database, size = STATEMENT_CACHE_SIZE): KyselySqliteDatabase {
  const statements = new BoundedCache<string, SqliteStatement>(size);
  return {
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached) return cached;
      const statement = sqlite.prepare(sql);
      statements.set(sql, statement);
      return statement;
    },
    close(): void {
      statements.clear();
      sqlite.close();
    },
  };
}
