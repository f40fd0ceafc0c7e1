import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { Schema } from '../storage/schema.js';

/**
 * Back-off for failed logins of one account (issue 3, "Bad input"): the first
 * FREE_FAILURES failures cost nothing; each further one doubles the wait, up to
 * MAX_BLOCK_SECONDS. Counted per login name, known or not, so the answer does
 * not reveal which logins exist. A successful login clears the count.
 */
export const FREE_FAILURES = 3;
export const MAX_BLOCK_SECONDS = 15 * 60;

export function blockSecondsAfter(failures: number): number {
  if (failures < FREE_FAILURES) return 0;
  return Math.min(2 ** (failures - FREE_FAILURES), MAX_BLOCK_SECONDS);
}

/** Seconds the login must still wait, 0 when it may try now. */
export async function loginRetryAfterSeconds(db: Kysely<Schema>, login: string, clock: Clock): Promise<number> {
  const row = await db.selectFrom('login_attempts').select('blocked_until').where('login', '=', login).executeTakeFirst();
  if (!row?.blocked_until) return 0;
  const remainingMs = new Date(row.blocked_until).getTime() - clock.now().getTime();
  return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
}

export async function recordLoginFailure(db: Kysely<Schema>, login: string, clock: Clock): Promise<void> {
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    // The increment happens in the database, so concurrent failures all count.
    await trx
      .insertInto('login_attempts')
      .values({ login, failures: 1, last_failure_at: now.toISOString(), blocked_until: null })
      .onConflict((oc) =>
        oc.column('login').doUpdateSet((eb) => ({
          failures: eb('login_attempts.failures', '+', 1),
          last_failure_at: now.toISOString(),
        })),
      )
      .execute();
    const row = await trx.selectFrom('login_attempts').select('failures').where('login', '=', login).executeTakeFirstOrThrow();
    const blockSeconds = blockSecondsAfter(Number(row.failures));
    if (blockSeconds > 0) {
      await trx
        .updateTable('login_attempts')
        .set({ blocked_until: new Date(now.getTime() + blockSeconds * 1000).toISOString() })
        .where('login', '=', login)
        .execute();
    }
  });
}

export async function clearLoginFailures(db: Kysely<Schema>, login: string): Promise<void> {
  await db.deleteFrom('login_attempts').where('login', '=', login).execute();
}
