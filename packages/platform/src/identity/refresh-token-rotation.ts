import { parseScopeString, type TokenSet } from '@feira/contract';
import { type Expression, type Kysely, sql, type Transaction } from 'kysely';
import type { DialectName } from '../storage/database.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import { runNamed } from '../storage/named-statement.js';
import type { Schema } from '../storage/schema.js';
import { CompiledOnce } from '../storage/statement-shapes.js';
import type { IdentityServices } from './identity-services.js';
import { OAuthError } from './oauth-error.js';
import { graceStartedAfter, refreshTokenPresentable } from './refresh-token-grace.js';
import {
  recordRefreshTokenFrom,
  recordTokenSet,
  revokeTokenFamily,
  type SignedTokenSet,
  signTokenSet,
} from './token-set-issuer.js';
import { REFRESH_TOKEN_TYP, type TokenClaims, TokenVerificationError } from './token-signer.js';

type Platform = Pick<IdentityServices, 'database' | 'clock' | 'signer' | 'config'>;

const INVALID_REFRESH = 'The refresh token is invalid, expired or revoked';

/**
 * The refresh_token grant (RFC 6749 §6) with rotation and reuse detection
 * (spec-notes I5):
 * - every refresh returns a new refresh token (a child of the one presented);
 * - the presented token stays usable until one of its children is first used,
 *   so a lost response does not log the seller out, but no longer than
 *   REFRESH_GRACE_SECONDS after its own first use and no more than
 *   REFRESH_GRACE_MAX_USES times, so one token cannot mint successors without
 *   end (refresh-token-grace.ts: the one predicate, which introspection reads too);
 * - a child's first use supersedes its parent and its siblings; presenting a
 *   superseded token is reuse and revokes the whole family.
 * Each step is a conditional UPDATE inside one transaction, so concurrent
 * refreshes are serialised by the row they touch on both dialects. The
 * statements are compiled once (storage/statement-shapes.ts, D166): a refresh
 * binds its values to their texts.
 */
export async function rotateRefreshToken(
  platform: Platform,
  clientId: string,
  input: { refreshToken: string; scope: string | undefined },
): Promise<TokenSet> {
  const { database, clock, signer } = platform;
  let claims: TokenClaims;
  try {
    // typ rt+jwt only: an access token (at+jwt) is never accepted here (spec-notes I4).
    claims = await signer.verify(input.refreshToken, REFRESH_TOKEN_TYP);
  } catch (error) {
    if (error instanceof TokenVerificationError) throw new OAuthError('invalid_grant', INVALID_REFRESH);
    throw error;
  }
  if (claims.client_id !== clientId) throw new OAuthError('invalid_grant', INVALID_REFRESH);

  // RFC 6749 §6: a narrower scope may be asked for, never a wider one.
  let scope = claims.scope;
  if (input.scope !== undefined) {
    const granted = new Set(parseScopeString(claims.scope));
    const asked = parseScopeString(input.scope);
    if (asked.length === 0 || asked.some((s) => !granted.has(s))) {
      throw new OAuthError('invalid_scope', 'The requested scope exceeds the scope originally granted');
    }
    scope = parseScopeString(claims.scope)
      .filter((s) => asked.includes(s))
      .join(' ');
  }

  const now = clock.now();
  // Signed before the transaction opens (see signTokenSet); dropped if the checks below refuse the token.
  const signed = await signTokenSet(platform, {
    familyId: claims.fid,
    clientId: claims.client_id,
    sellerId: claims.sub,
    scope,
    tenants: claims.tenants,
    parentJti: claims.jti,
  });
  const values = rotationValues(claims, signed, now);
  const outcome = dialectAdapter(database).supportsWritableCte
    ? await rotateInOneStatement(database, values, signed, claims, now)
    : await database.db.transaction().execute((trx) => rotateInTransaction(trx, database.dialect, values, signed, claims, now));
  if (typeof outcome === 'string') throw new OAuthError('invalid_grant', INVALID_REFRESH);
  return outcome;
}

type Refusal = 'invalid' | 'reused';

/** The values of one rotation's statements: the token presented, and the row of the one that replaces it. */
export interface RotationValues extends Record<string, unknown> {
  jti: string;
  fid: string;
  now: string;
  graceStartedAfter: string;
  newJti: string;
  newCreatedAt: string;
  newExpiresAt: string;
}

function rotationValues(claims: TokenClaims, signed: SignedTokenSet, now: Date): RotationValues {
  const { refreshToken } = signed;
  return {
    jti: claims.jti,
    fid: claims.fid,
    now: now.toISOString(),
    graceStartedAfter: graceStartedAfter(now),
    newJti: refreshToken.jti,
    newCreatedAt: refreshToken.createdAt,
    newExpiresAt: refreshToken.expiresAt,
  };
}

type Slot = <K extends keyof RotationValues & string>(name: K) => RotationValues[K];

/** The presented token, taken (a use counted) only while its family stands: its parent, or nothing when it was refused. */
function takeToken(db: Kysely<Schema>, slot: Slot) {
  return db
    .updateTable('refresh_tokens')
    .set((eb) => ({
      used_at: eb.fn.coalesce('used_at', eb.val(slot('now'))),
      use_count: eb('use_count', '+', sql.lit(1)),
    }))
    .where('jti', '=', slot('jti'))
    .where('family_id', '=', slot('fid'))
    .where((eb) => refreshTokenPresentable(eb, slot('graceStartedAfter')))
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('token_families').select('id').where('id', '=', slot('fid')).where('revoked_at', 'is', null)),
    )
    .returning('parent_jti');
}

/**
 * The presented token's parent and the parent's other children, superseded once the token is taken. They
 * are found by key (the parent's jti, the children's parent_jti), never by their family: a grant rotated
 * every two hours for a year has thousands of rows, and reading them all made each refresh slower than the
 * last. `family` is how the statement names the family's column: SQLite's transaction writes it
 * `+family_id`, which keeps its index out of the plan (SQLite's own way to disqualify a term), because
 * without statistics its planner chose that index over the two keys.
 */
function supersede(db: Kysely<Schema>, slot: Slot, parent: () => Expression<string | null>, family: Expression<string>) {
  return db
    .updateTable('refresh_tokens')
    .set({ superseded_at: slot('now') })
    .where(family, '=', slot('fid'))
    .where('superseded_at', 'is', null)
    .where((eb) => eb.or([eb('jti', '=', parent()), eb.and([eb('parent_jti', '=', parent()), eb('jti', '!=', slot('jti'))])]));
}

const TAKE = new CompiledOnce<Schema, RotationValues, { parent_jti: string | null }>('refresh token take', takeToken);
const SUPERSEDE = new CompiledOnce<Schema, RotationValues & { parentJti: string }, never>(
  'refresh token parent superseded',
  // The transaction's statement: SQLite (a database without writable CTEs) runs it.
  (db, slot) => supersede(db, slot, () => sql<string>`${slot('parentJti')}`, sql<string>`+family_id`),
);
/** The statements of SQLite's rotation transaction, for their query-plan test. */
export const ROTATION_STATEMENTS = { take: TAKE, supersede: SUPERSEDE };

/** The name `ROTATE` is prepared under on each PostgreSQL connection. */
const ROTATE_STATEMENT = 'feira_refresh_rotate';
/**
 * The same three writes as one statement (PostgreSQL: writable CTEs, each run
 * once and to completion on one snapshot): the token taken, its parent and the
 * parent's other children superseded, the new token's row inserted only if
 * the token was taken. One round trip and one commit instead of five.
 */
const ROTATE = new CompiledOnce<Schema, RotationValues, { jti: string }>('refresh token rotated', (db, slot) =>
  recordRefreshTokenFrom(
    db
      .with('taken', () => takeToken(db, slot))
      .with('superseded', () =>
        supersede(
          db,
          slot,
          () => sql<string | null>`(select taken.parent_jti from taken)`,
          sql.ref<string>('family_id'),
        ).returning('jti'),
      ),
    'taken',
    // The replacing token's row, its parent the presented token.
    {
      jti: slot('newJti'),
      familyId: slot('fid'),
      parentJti: slot('jti'),
      createdAt: slot('newCreatedAt'),
      expiresAt: slot('newExpiresAt'),
    },
  ).returning('jti'),
);

/** Why a token was not taken: its family revoked or unknown, past the grace, or superseded (reuse: the family goes). */
async function refusal(db: Kysely<Schema> | Transaction<Schema>, claims: TokenClaims, now: Date): Promise<Refusal> {
  const family = await db.selectFrom('token_families').select('revoked_at').where('id', '=', claims.fid).executeTakeFirst();
  if (!family || family.revoked_at !== null) return 'invalid';
  const known = await db.selectFrom('refresh_tokens').select('superseded_at').where('jti', '=', claims.jti).executeTakeFirst();
  if (!known) return 'invalid';
  // Past the grace's bound but not superseded: refused, the family stays.
  if (known.superseded_at === null) return 'invalid';
  // spec-notes I5: a superseded token presented again is reuse: the whole family goes.
  await revokeTokenFamily(db, claims.fid, 'refresh_token_reuse', now);
  return 'reused';
}

/** One transaction of single statements (SQLite: its WITH takes no UPDATE). */
async function rotateInTransaction(
  trx: Transaction<Schema>,
  dialect: DialectName,
  values: RotationValues,
  signed: SignedTokenSet,
  claims: TokenClaims,
  now: Date,
): Promise<TokenSet | Refusal> {
  const row = (await trx.executeQuery(TAKE.query(trx, dialect, values))).rows[0];
  if (!row) return refusal(trx, claims, now);
  // This token's use proves its response arrived: its parent and the parent's other children are now superseded.
  if (row.parent_jti !== null) await trx.executeQuery(SUPERSEDE.query(trx, dialect, { ...values, parentJti: row.parent_jti }));
  return recordTokenSet(trx, dialect, signed);
}

async function rotateInOneStatement(
  database: Platform['database'],
  values: RotationValues,
  signed: SignedTokenSet,
  claims: TokenClaims,
  now: Date,
): Promise<TokenSet | Refusal> {
  const query = ROTATE.query(database.db, database.dialect, values);
  // On PostgreSQL a named statement: each connection parses and plans it once (storage/named-statement.ts).
  const [inserted] = await runNamed(database, ROTATE_STATEMENT, query);
  return inserted ? signed.tokenSet : refusal(database.db, claims, now);
}
