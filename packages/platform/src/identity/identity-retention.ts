import { type Kysely, sql } from 'kysely';
import type { RetentionRule } from '../storage/retention-sweeper.js';
import { deleteBeforeBatch } from '../storage/retention-sweeper.js';
import type { Schema } from '../storage/schema.js';

const HOUR_MS = 3_600_000;

/**
 * The identity provider's retention (docs/deploy.md "Retention"): what it
 * keeps only while it can still be used, and `expiredHours` after.
 *
 * - Authorization codes, after they expired: an expired code is refused
 *   whether its row is there or not (RFC 6749 §4.1.2, ten minutes).
 * - Refresh tokens, after they expired and after every access token issued
 *   with them has too: a superseded token is kept until then, so that
 *   presenting it is still seen as reuse and revokes its family (spec-notes I5).
 * - Token families once no code and no refresh token of theirs is left: an
 *   access token is verified against its family's row (spec-notes I6), and
 *   every access token was issued with a refresh token kept past its expiry.
 * - Login sessions, after they expired.
 * - Throttle rows, after their window and any block they earned ended
 *   (a key idle that long starts again from no failures).
 */
export function identityRetentionRules(
  db: Kysely<Schema>,
  policy: { expiredHours: number; accessTokenTtlSeconds: number },
): RetentionRule[] {
  if (policy.expiredHours === 0) return [];
  const keptMs = policy.expiredHours * HOUR_MS;
  const cutoff = (now: Date, ms = keptMs) => new Date(now.getTime() - ms).toISOString();
  const tokenKeptMs = Math.max(keptMs, policy.accessTokenTtlSeconds * 1000);
  return [
    {
      name: 'authorization_codes',
      sweep: ({ now, limit }) =>
        deleteBeforeBatch(db, {
          table: 'authorization_codes',
          key: 'code_hash',
          time: 'expires_at',
          cutoffIso: cutoff(now),
          limit,
        }),
    },
    {
      name: 'refresh_tokens',
      sweep: ({ now, limit }) =>
        deleteBeforeBatch(db, {
          table: 'refresh_tokens',
          key: 'jti',
          time: 'expires_at',
          cutoffIso: cutoff(now, tokenKeptMs),
          limit,
        }),
    },
    {
      name: 'token_families',
      sweep: (batch) => sweepFamilies(db, { ...batch, cutoffIso: cutoff(batch.now, tokenKeptMs) }),
    },
    {
      name: 'login_sessions',
      sweep: ({ now, limit }) =>
        deleteBeforeBatch(db, { table: 'login_sessions', key: 'id_hash', time: 'expires_at', cutoffIso: cutoff(now), limit }),
    },
    {
      name: 'auth_throttle',
      sweep: ({ now, limit }) => {
        const cutoffIso = cutoff(now);
        return deleteBeforeBatch(db, {
          table: 'auth_throttle',
          key: 'key',
          time: 'window_started_at',
          cutoffIso,
          limit,
          also: sql`(blocked_until is null or blocked_until < ${cutoffIso})`,
        });
      },
    },
  ];
}

/**
 * Families older than the cutoff, walked by creation time from where the
 * previous batch stopped (a long-lived grant is read once a pass, not once a
 * batch), each deleted when neither a code nor a refresh token names it.
 */
async function sweepFamilies(
  db: Kysely<Schema>,
  batch: { limit: number; after: string | null; cutoffIso: string },
): Promise<{ deleted: number; next: string | null }> {
  const [afterCreated, afterId] = batch.after === null ? [null, null] : JSON.parse(batch.after);
  let scan = db
    .selectFrom('token_families')
    .select(['id', 'created_at'])
    .where('created_at', '<', batch.cutoffIso)
    .orderBy('created_at')
    .orderBy('id')
    .limit(batch.limit);
  if (afterCreated !== null) {
    scan = scan.where((eb) =>
      eb.or([eb('created_at', '>', afterCreated), eb.and([eb('created_at', '=', afterCreated), eb('id', '>', afterId)])]),
    );
  }
  const families = await scan.execute();
  if (families.length === 0) return { deleted: 0, next: null };
  const ids = families.map((family) => family.id);
  const held = new Set<string>();
  for (const row of await db.selectFrom('refresh_tokens').select('family_id').where('family_id', 'in', ids).execute())
    held.add(row.family_id);
  for (const row of await db.selectFrom('authorization_codes').select('family_id').where('family_id', 'in', ids).execute())
    held.add(row.family_id);
  const free = ids.filter((id) => !held.has(id));
  let deleted = 0;
  if (free.length > 0) {
    // Checked again in the statement: a family that got a token since the read above stays.
    const result = await db
      .deleteFrom('token_families')
      .where('id', 'in', free)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('refresh_tokens').select('jti').whereRef('refresh_tokens.family_id', '=', 'token_families.id'))),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('authorization_codes')
              .select('code_hash')
              .whereRef('authorization_codes.family_id', '=', 'token_families.id'),
          ),
        ),
      )
      .executeTakeFirst();
    deleted = Number(result.numDeletedRows);
  }
  const last = families[families.length - 1] as { id: string; created_at: string };
  return { deleted, next: families.length < batch.limit ? null : JSON.stringify([last.created_at, last.id]) };
}
