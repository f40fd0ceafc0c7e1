import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Schema } from '../storage/schema.js';

/**
 * The bound on the lost-response grace (spec-notes I5): once a
 * refresh token has been used (its first successor issued), it may be presented
 * again only within REFRESH_GRACE_SECONDS of that first use, and at most
 * REFRESH_GRACE_MAX_USES times in all. Past either bound it is refused
 * (`invalid_grant`) without revoking the family: the holder of the successor
 * is not punished for a retry that came too late.
 */
export const REFRESH_GRACE_SECONDS = 60;
export const REFRESH_GRACE_MAX_USES = 5;

/**
 * Whether a `refresh_tokens` row may be presented at `now` (spec-notes I5): not
 * superseded by a successor's use, and either never used or still within the
 * grace's bounds. The one definition read by the refresh grant (which consumes a
 * use under it) and by introspection (RFC 7662 §2.2, which must not call active a
 * token the grant would refuse), so the two cannot disagree.
 */
export function refreshTokenPresentable(eb: ExpressionBuilder<Schema, 'refresh_tokens'>, now: Date): Expression<SqlBool> {
  const graceStartedAfter = new Date(now.getTime() - REFRESH_GRACE_SECONDS * 1000).toISOString();
  return eb.and([
    eb('refresh_tokens.superseded_at', 'is', null),
    eb.or([
      eb('refresh_tokens.used_at', 'is', null),
      eb.and([eb('refresh_tokens.used_at', '>', graceStartedAfter), eb('refresh_tokens.use_count', '<', REFRESH_GRACE_MAX_USES)]),
    ]),
  ]);
}
