import type { Kysely } from 'kysely';
import type { Schema } from '../storage/schema.js';

/**
 * The operator console's sessions, stored by the hash of their random id (the
 * cookie holds the id, the table never does). The console decides when one
 * starts and ends; this is where the rows live.
 */

/** True when a session of this id hash has not ended and has not expired at `nowIso`. */
export async function operatorSessionLive(db: Kysely<Schema>, idHash: string, nowIso: string): Promise<boolean> {
  const row = await db
    .selectFrom('operator_sessions')
    .select('id_hash')
    .where('id_hash', '=', idHash)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return row !== undefined;
}

export async function startOperatorSession(
  db: Kysely<Schema>,
  session: { idHash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('operator_sessions')
    .values({ id_hash: session.idHash, created_at: session.createdAt, expires_at: session.expiresAt, ended_at: null })
    .execute();
}

/** Ends a live session (a copied cookie is refused afterwards); an ended or unknown one is left as it is. */
export async function endOperatorSession(db: Kysely<Schema>, idHash: string, endedAtIso: string): Promise<void> {
  await db
    .updateTable('operator_sessions')
    .set({ ended_at: endedAtIso })
    .where('id_hash', '=', idHash)
    .where('ended_at', 'is', null)
    .execute();
}
