import type { TokenSet } from '@feira/contract';
import { type Kysely, type QueryCreator, sql, type Transaction } from 'kysely';
import { epochSeconds } from '../core/clock.js';
import type { DialectName } from '../storage/database.js';
import type { Schema } from '../storage/schema.js';
import { CompiledOnce } from '../storage/statement-shapes.js';
import { type GrantRevocationReason, revokeGrant } from './grant-revocation.js';
import type { IdentityServices } from './identity-services.js';
import { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP } from './token-signer.js';

/** What a token set is issued for: one grant (token family) of one seller to one client. */
export interface GrantOfTokens {
  familyId: string;
  clientId: string;
  sellerId: string;
  scope: string;
  tenants: string[];
  /** The refresh token this set rotates (spec-notes I5), null for a code exchange. */
  parentJti: string | null;
}

/** A token set signed but not yet in force: its refresh token is recorded by `recordTokenSet`. */
export interface SignedTokenSet {
  tokenSet: TokenSet;
  refreshToken: { jti: string; familyId: string; parentJti: string | null; createdAt: string; expiresAt: string };
}

/**
 * A refresh token's id and issue time drawn before it is signed, so that a
 * grant's one statement can record its row before the tokens exist (the code
 * exchange on PostgreSQL). `signTokenSet` then signs with these, and the row's
 * `created_at` and `expires_at` are the token's `iat` and `exp`.
 */
export interface DrawnRefreshToken {
  now: Date;
  jti: string;
}

/** The row values of a refresh token drawn so (its `created_at` its `iat`, its `expires_at` its `exp`): what the statement records before signing. */
export function drawnRefreshTokenRow(
  drawn: DrawnRefreshToken,
  refreshTokenTtlSeconds: number,
): { jti: string; createdAt: string; expiresAt: string } {
  return {
    jti: drawn.jti,
    createdAt: drawn.now.toISOString(),
    expiresAt: new Date((epochSeconds(drawn.now) + refreshTokenTtlSeconds) * 1000).toISOString(),
  };
}

/**
 * Signs an access token (`at+jwt`, ES256, 7200 s by default) and a refresh token
 * (`rt+jwt`, HS256 under the derived key, 30 days by default: spec-notes I4 amended)
 * and returns exactly the six fields of the spec's token set. Signing is done before the grant's transaction opens, never
 * inside it: on SQLite one transaction holds the only connection, so an ES256
 * signature awaited inside it (a WebCrypto job on the thread pool) made every
 * other request wait (docs/decisions.md D23). A set signed for a grant that then fails its checks is
 * simply dropped: no refresh token of it is recorded, and the access token
 * belongs to a family the failure revokes or that the client never receives.
 */
export async function signTokenSet(
  platform: Pick<IdentityServices, 'signer' | 'clock' | 'config'>,
  grant: GrantOfTokens,
  drawn?: DrawnRefreshToken,
): Promise<SignedTokenSet> {
  const { config, signer, clock } = platform;
  const now = drawn?.now ?? clock.now();
  const input = {
    sellerId: grant.sellerId,
    clientId: grant.clientId,
    scope: grant.scope,
    tenants: grant.tenants,
    familyId: grant.familyId,
  };
  const [access, refresh] = await Promise.all([
    signer.sign(ACCESS_TOKEN_TYP, { ...input, ttlSeconds: config.accessTokenTtlSeconds, issuedAt: now }),
    signer.sign(REFRESH_TOKEN_TYP, {
      ...input,
      ttlSeconds: config.refreshTokenTtlSeconds,
      issuedAt: now,
      ...(drawn ? { jti: drawn.jti } : {}),
    }),
  ]);
  return {
    tokenSet: {
      access_token: access.token,
      refresh_token: refresh.token,
      token_type: 'Bearer',
      expires_in: config.accessTokenTtlSeconds,
      scope: grant.scope,
      created_at: epochSeconds(now),
    },
    // The row's times are the token's `iat` and `exp`, derived as the row of a token drawn beforehand is.
    refreshToken: {
      ...drawnRefreshTokenRow({ now, jti: refresh.claims.jti }, config.refreshTokenTtlSeconds),
      familyId: grant.familyId,
      parentJti: grant.parentJti,
    },
  };
}

/** The values of a set's refresh-token row. */
type RefreshTokenRow = SignedTokenSet['refreshToken'];

/** The row's values, each standing for itself or for a slot of a statement compiled once (storage/statement-shapes.ts). */
export type RefreshTokenRowValues = { [K in keyof RefreshTokenRow]: unknown };

const RECORD = new CompiledOnce<Schema, RefreshTokenRow, never>('refresh token recorded', (db, slot) =>
  db.insertInto('refresh_tokens').values({
    jti: slot('jti'),
    family_id: slot('familyId'),
    parent_jti: slot('parentJti'),
    created_at: slot('createdAt'),
    expires_at: slot('expiresAt'),
    used_at: sql<null>`null`,
    superseded_at: sql<null>`null`,
  }),
);

/**
 * Records the set's refresh token for rotation and reuse detection (spec-notes I5), inside the grant's
 * transaction: one statement compiled once (D166).
 */
export async function recordTokenSet(
  trx: Transaction<Schema> | Kysely<Schema>,
  dialect: DialectName,
  signed: SignedTokenSet,
): Promise<TokenSet> {
  await trx.executeQuery(RECORD.query(trx, dialect, signed.refreshToken));
  return signed.tokenSet;
}

/** The columns of a set's refresh-token row, in the order of `refreshTokenSelection`. */
const REFRESH_TOKEN_COLUMNS = ['jti', 'family_id', 'parent_jti', 'created_at', 'expires_at', 'used_at', 'superseded_at'] as const;

/** A set's refresh-token row as a select list, each value standing for itself, for a slot or for a column of the CTE. */
function refreshTokenSelection(row: RefreshTokenRowValues) {
  return [
    sql<string>`${row.jti}`.as('jti'),
    sql<string>`${row.familyId}`.as('family_id'),
    sql<string | null>`${row.parentJti}`.as('parent_jti'),
    sql<string>`${row.createdAt}`.as('created_at'),
    sql<string>`${row.expiresAt}`.as('expires_at'),
    sql<null>`null`.as('used_at'),
    sql<null>`null`.as('superseded_at'),
  ];
}

/**
 * A set's refresh-token row inserted from `taken`, the writable CTE of a
 * grant's one statement on PostgreSQL that took the code or the token
 * (`INSERT … SELECT … FROM taken`): the row exists only if something was
 * taken. `row` holds the slots of the statement compiled once that binds
 * them, or references to the CTE's columns.
 */
export function recordRefreshTokenFrom(
  // biome-ignore lint/suspicious/noExplicitAny: the statement's CTEs are the caller's; its table here is refresh_tokens alone.
  statement: QueryCreator<any>,
  taken: string,
  row: RefreshTokenRowValues,
) {
  return statement
    .insertInto('refresh_tokens')
    .columns(REFRESH_TOKEN_COLUMNS)
    .expression((eb) => eb.selectFrom(taken).select(refreshTokenSelection(row)));
}

/** Revokes every access and refresh token of a family (RFC 6749 §4.1.2, spec-notes I5/I6), inside the caller's transaction. */
export async function revokeTokenFamily(
  db: Transaction<Schema> | Kysely<Schema>,
  familyId: string,
  reason: GrantRevocationReason,
  now: Date,
): Promise<void> {
  await revokeGrant({ db, now }, { familyId }, reason);
}
