import { CompiledQuery, type Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';

/** The revocation read's SQL per database handle: the statement never changes, so it is compiled once (D76). */
const revocationSql = new WeakMap<Kysely<Schema>, string>();

/**
 * Whether a token family (a grant) is still live, read from the database on every call (spec-notes I6:
 * a revocation takes effect on the next call, in every process). The statement is compiled once per
 * database and run as a CompiledQuery: a call pays for the read alone, not for building and compiling
 * the same query again (D76).
 */
export async function tokenFamilyIsLive(db: Kysely<Schema>, familyId: string): Promise<boolean> {
  let text = revocationSql.get(db);
  if (text === undefined) {
    text = db.selectFrom('token_families').select('revoked_at').where('id', '=', familyId).compile().sql;
    revocationSql.set(db, text);
  }
  const { rows } = await db.executeQuery<{ revoked_at: string | null }>(CompiledQuery.raw(text, [familyId]));
  const family = rows[0];
  return family !== undefined && family.revoked_at === null;
}
