import type { Kysely } from 'kysely';
import { sha256Hex } from '../core/hashing.js';
import type { Schema } from '../storage/schema.js';

/** Whom and where an authorization code was issued for, looked up by the code itself (stored only as its hash). */
export async function authorizationCodeIssue(
  db: Kysely<Schema>,
  code: string,
): Promise<{ clientId: string; redirectUri: string } | undefined> {
  const row = await db
    .selectFrom('authorization_codes')
    .select(['client_id', 'redirect_uri'])
    .where('code_hash', '=', sha256Hex(code))
    .executeTakeFirst();
  return row ? { clientId: row.client_id, redirectUri: row.redirect_uri } : undefined;
}

/**
 * When a refresh token of any grant the seller gave the client was last
 * issued (at the authorization code exchange or a refresh); null if never.
 */
export async function lastTokenIssuedAt(
  db: Kysely<Schema>,
  grant: { clientId: string; sellerId: string },
): Promise<string | null> {
  const last = await db
    .selectFrom('refresh_tokens')
    .innerJoin('token_families', 'token_families.id', 'refresh_tokens.family_id')
    .select((eb) => eb.fn.max('refresh_tokens.created_at').as('last'))
    .where('token_families.client_id', '=', grant.clientId)
    .where('token_families.seller_id', '=', grant.sellerId)
    .executeTakeFirst();
  return (last?.last as string | null | undefined) ?? null;
}

/**
 * Forgets what a seller or a client app leaves behind when it is deleted: its
 * consents and its authorization codes not yet exchanged (their grants are
 * revoked with revokeGrant).
 */
export async function deleteConsentsAndCodes(
  db: Kysely<Schema>,
  owner: { sellerId: string } | { clientId: string },
): Promise<void> {
  if ('sellerId' in owner) {
    await db.deleteFrom('consents').where('seller_id', '=', owner.sellerId).execute();
    await db.deleteFrom('authorization_codes').where('seller_id', '=', owner.sellerId).execute();
  } else {
    await db.deleteFrom('consents').where('client_id', '=', owner.clientId).execute();
    await db.deleteFrom('authorization_codes').where('client_id', '=', owner.clientId).execute();
  }
}
