import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { PlatformError } from '../core/platform-error.js';
import type { Random } from '../core/random.js';
import type { Schema } from '../storage/schema.js';

/** What every record write needs: time and ids come from the platform's injected seams. */
export interface RecordWriteDeps {
  clock: Clock;
  random: Random;
}

/**
 * Runs `work` in a transaction: the caller's, when `db` already is one (the
 * checkout creates an order inside its own), or a new one. Either way the record
 * change and its outbox event commit together (SPEC-DECISIONS W6).
 */
export function inTransaction<T>(db: Kysely<Schema>, work: (trx: Kysely<Schema>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** A unique-constraint violation on either dialect (SQLite's code, PostgreSQL's SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Admin writes name a tenant in the path: an unknown one is a 404, not a foreign-key error. */
export async function assertTenantExists(db: Kysely<Schema>, tenantId: string): Promise<void> {
  const tenant = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw new PlatformError('NOT_FOUND', { message: 'Tenant not found' });
}
