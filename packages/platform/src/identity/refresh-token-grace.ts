import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
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
 * Whether a `refresh_tokens` row may be presented now (spec-notes I5), given
 * `graceStartedAfter(now)`: not superseded by a successor's use, and either
 * never used or still within the grace's bounds. The one definition read by the refresh grant (which consumes a
 * use under it) and by introspection (RFC 7662 §2.2, which must not call active a
 * token the grant would refuse), so the two cannot disagree.
 */
export function refreshTokenPresentable(
  eb: ExpressionBuilder<Schema, 'refresh_tokens'>,
  graceStartedAfter: string,
): Expression<SqlBool> {
  return eb.and([
    eb('refresh_tokens.superseded_at', 'is', null),
    eb.or([
      eb('refresh_tokens.used_at', 'is', null),
      eb.and([
        eb('refresh_tokens.used_at', '>', graceStartedAfter),
        // A literal, not a bound value: the refresh grant's statement is compiled once (statement-shapes.ts).
        eb('refresh_tokens.use_count', '<', sql.lit(REFRESH_GRACE_MAX_USES)),
      ]),
    ]),
  ]);
}

/** The `graceStartedAfter` of {@link refreshTokenPresentable} at `now`: a token first used before it is past the grace. */
export function graceStartedAfter(now: Date): string {
  return new Date(now.getTime() - REFRESH_GRACE_SECONDS * 1000).toISOString();
}
