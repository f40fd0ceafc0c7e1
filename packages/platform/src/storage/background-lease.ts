import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

/**
 * Takes or renews the lease `name` for `holder` until `now + ttlMs`, in one
 * statement: the row is written when it is missing, when its lease ran out,
 * or when `holder` already holds it; otherwise it is left alone and nothing
 * comes back. The upsert is atomic on both databases, so of several
 * processes asking at once exactly one gets the lease. A holder that stops
 * (or stalls past its lease) loses it to the next one who asks.
 */
export async function holdLease(
  db: Kysely<Schema>,
  lease: { name: string; holder: string; now: Date; ttlMs: number },
): Promise<boolean> {
  const nowIso = lease.now.toISOString();
  const until = new Date(lease.now.getTime() + lease.ttlMs).toISOString();
  const row = await db
    .insertInto('background_leases')
    .values({ name: lease.name, holder: lease.holder, lease_until: until })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder: lease.holder, lease_until: until })
        .where((eb) =>
          eb.or([eb('background_leases.lease_until', '<=', nowIso), eb('background_leases.holder', '=', lease.holder)]),
        ),
    )
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === lease.holder;
}

/** Gives the lease back at once (a process stopping), if `holder` still holds it. */
export async function releaseLease(db: Kysely<Schema>, lease: { name: string; holder: string }): Promise<void> {
  await db.deleteFrom('background_leases').where('name', '=', lease.name).where('holder', '=', lease.holder).execute();
}
