import type { IntrospectionResponse } from '@feira/contract';
import type { Kysely, Transaction } from 'kysely';
import type { Schema } from '../storage/schema.js';
import type { IdentityServices } from './identity-services.js';
import { graceStartedAfter, refreshTokenPresentable } from './refresh-token-grace.js';
import { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP, type TokenClaims, TokenVerificationError } from './token-signer.js';

/** Why a grant (token family) was ended; kept in `token_families.revoked_reason`. */
export type GrantRevocationReason =
  | 'authorization_code_reuse'
  | 'refresh_token_reuse'
  /** The client revoked one of its tokens (RFC 7009). */
  | 'revoked_by_client'
  /** The seller disconnected the application. */
  | 'disconnected_by_seller'
  /** An operator deleted the seller, or the application (admin/account-changes.ts). */
  | 'seller_deleted'
  | 'client_deleted';

/**
 * Which grants to end: one family, every grant a seller gave one client
 * ("disconnect app"), every grant of a seller (deleted) or of a client (deleted).
 */
export type GrantSelector =
  | { familyId: string }
  | { clientId: string; sellerId: string }
  | { sellerId: string }
  | { clientId: string };

/**
 * Ends grants: every access and refresh token of the selected token families is
 * refused from now on (the access-token guard and the refresh grant both read
 * `token_families.revoked_at`). The one revocation path for RFC 7009 and for a
 * seller disconnecting an application. Returns how many grants it ended;
 * ending an already ended grant is a no-op (its first reason is kept).
 */
export async function revokeGrant(
  deps: Pick<IdentityServices, 'database' | 'clock'> | { db: Kysely<Schema> | Transaction<Schema>; now: Date },
  selector: GrantSelector,
  reason: GrantRevocationReason,
): Promise<number> {
  const [db, now] = 'db' in deps ? [deps.db, deps.now] : [deps.database.db, deps.clock.now()];
  let query = db
    .updateTable('token_families')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where('revoked_at', 'is', null);
  if ('familyId' in selector) query = query.where('id', '=', selector.familyId);
  if ('clientId' in selector) query = query.where('client_id', '=', selector.clientId);
  if ('sellerId' in selector) query = query.where('seller_id', '=', selector.sellerId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A token the server issued, verified, with what kind it is; null for anything else (wrong signature, expired, garbage). */
interface IssuedToken {
  kind: 'access_token' | 'refresh_token';
  claims: TokenClaims;
}

/**
 * Reads a token as either kind, trying the hinted kind first (RFC 7009 §2.1 / RFC 7662 §2.1:
 * `token_type_hint` is only a hint; a server must still look the token up as the other kinds).
 */
async function verifyIssuedToken(
  deps: Pick<IdentityServices, 'signer'>,
  token: string,
  hint: string | undefined,
): Promise<IssuedToken | null> {
  const kinds: Array<IssuedToken['kind']> =
    hint === 'refresh_token' ? ['refresh_token', 'access_token'] : ['access_token', 'refresh_token'];
  for (const kind of kinds) {
    try {
      const claims = await deps.signer.verify(token, kind === 'access_token' ? ACCESS_TOKEN_TYP : REFRESH_TOKEN_TYP);
      return { kind, claims };
    } catch (error) {
      if (!(error instanceof TokenVerificationError)) throw error;
    }
  }
  return null;
}

/**
 * RFC 7009 §2.1: revokes the token presented by the client that it was issued to.
 * Revoking a refresh token ends its whole family (every access and refresh token of
 * the grant); revoking an access token does the same (§2.1 allows revoking the
 * grant's refresh token too, and a JWT access token cannot be revoked alone without
 * a deny list). §2.2: an invalid, expired or unknown token, or one issued to another
 * client, is not an error: the answer is the same 200, so nothing is learnt from it.
 */
export async function revokeToken(
  deps: Pick<IdentityServices, 'database' | 'clock' | 'signer'>,
  clientId: string,
  token: string,
  hint: string | undefined,
): Promise<void> {
  const issued = await verifyIssuedToken(deps, token, hint);
  if (!issued || issued.claims.client_id !== clientId) return;
  await revokeGrant(deps, { familyId: issued.claims.fid }, 'revoked_by_client');
}

/**
 * RFC 7662 §2.2: whether a token is in force now: signature, `typ`, expiry, its grant
 * not revoked, and for a refresh token, what the refresh grant requires of it: not
 * superseded by rotation, and within the bounds of its grace once used (spec-notes I5).
 * A client may introspect only its own tokens; another client's token reads inactive
 * (§2.2 lets the server decide what a caller may learn).
 */
export async function introspectToken(
  deps: Pick<IdentityServices, 'database' | 'signer' | 'clock'>,
  clientId: string,
  token: string,
  hint: string | undefined,
): Promise<IntrospectionResponse> {
  const inactive = { active: false } as const;
  const issued = await verifyIssuedToken(deps, token, hint);
  if (!issued || issued.claims.client_id !== clientId) return inactive;
  const { claims } = issued;
  const family = await deps.database.db
    .selectFrom('token_families')
    .select('revoked_at')
    .where('id', '=', claims.fid)
    .executeTakeFirst();
  if (!family || family.revoked_at !== null) return inactive;
  if (issued.kind === 'refresh_token') {
    // Active exactly when the refresh grant would accept it now: the same predicate, so the two cannot drift.
    const presentable = await deps.database.db
      .selectFrom('refresh_tokens')
      .select('jti')
      .where('jti', '=', claims.jti)
      .where('family_id', '=', claims.fid)
      .where((eb) => refreshTokenPresentable(eb, graceStartedAfter(deps.clock.now())))
      .executeTakeFirst();
    if (!presentable) return inactive;
  }
  return {
    active: true,
    scope: claims.scope,
    client_id: claims.client_id,
    sub: claims.sub,
    exp: claims.exp,
    iat: claims.iat,
    iss: claims.iss,
    jti: claims.jti,
    token_type: issued.kind === 'access_token' ? 'Bearer' : 'refresh_token',
    tenants: [...claims.tenants],
  };
}
