import type { TokenSet } from '@feira/contract';
import type { Kysely, Transaction } from 'kysely';
import type { PlatformContext } from '../app.js';
import { epochSeconds } from '../core/clock.js';
import type { Schema } from '../storage/schema.js';
import { ACCESS_TOKEN_TYP, REFRESH_TOKEN_TYP } from './token-signer.js';

/** What a token set is issued for: one grant (token family) of one seller to one client. */
export interface GrantOfTokens {
  familyId: string;
  clientId: string;
  sellerId: string;
  scope: string;
  tenants: string[];
  /** The refresh token this set rotates (SPEC-DECISIONS I5), null for a code exchange. */
  parentJti: string | null;
}

/**
 * Signs an access token (`at+jwt`, 7200 s by default) and a refresh token
 * (`rt+jwt`, 30 days by default) and records the refresh token for rotation and
 * reuse detection, inside the caller's transaction. Returns exactly the six
 * fields of the spec's token set.
 */
export async function issueTokenSet(
  trx: Transaction<Schema> | Kysely<Schema>,
  platform: Pick<PlatformContext, 'signer' | 'clock' | 'config'>,
  grant: GrantOfTokens,
): Promise<TokenSet> {
  const { config, signer, clock } = platform;
  const now = clock.now();
  const input = {
    sellerId: grant.sellerId,
    clientId: grant.clientId,
    scope: grant.scope,
    tenants: grant.tenants,
    familyId: grant.familyId,
  };
  const access = await signer.sign(ACCESS_TOKEN_TYP, { ...input, ttlSeconds: config.accessTokenTtlSeconds });
  const refresh = await signer.sign(REFRESH_TOKEN_TYP, { ...input, ttlSeconds: config.refreshTokenTtlSeconds });
  await trx
    .insertInto('refresh_tokens')
    .values({
      jti: refresh.claims.jti,
      family_id: grant.familyId,
      parent_jti: grant.parentJti,
      created_at: now.toISOString(),
      expires_at: new Date(refresh.claims.exp * 1000).toISOString(),
      used_at: null,
      superseded_at: null,
    })
    .execute();
  return {
    access_token: access.token,
    refresh_token: refresh.token,
    token_type: 'Bearer',
    expires_in: config.accessTokenTtlSeconds,
    scope: grant.scope,
    created_at: epochSeconds(now),
  };
}

/** Revokes every access and refresh token of a family (RFC 6749 §4.1.2, SPEC-DECISIONS I5/I6). */
export async function revokeTokenFamily(
  db: Transaction<Schema> | Kysely<Schema>,
  familyId: string,
  reason: 'authorization_code_reuse' | 'refresh_token_reuse',
  now: Date,
): Promise<void> {
  await db
    .updateTable('token_families')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}
