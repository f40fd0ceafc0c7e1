import { createHash } from 'node:crypto';
import { parseScopeString, type TokenSet } from '@feira/contract';
import { type Kysely, type Selectable, sql } from 'kysely';
import { epochSeconds } from '../core/clock.js';
import { constantTimeEqual, sha256Hex } from '../core/hashing.js';
import { randomToken } from '../core/random.js';
import { dialectAdapter } from '../storage/dialect-adapter.js';
import { runNamed } from '../storage/named-statement.js';
import type { Schema } from '../storage/schema.js';
import { CompiledOnce } from '../storage/statement-shapes.js';
import { OPENID_SCOPE } from './authorization-request.js';
import type { IdentityServices } from './identity-services.js';
import { OAuthError } from './oauth-error.js';
import {
  type DrawnRefreshToken,
  drawnRefreshTokenRow,
  recordRefreshTokenFrom,
  recordTokenSet,
  revokeTokenFamily,
  type SignedTokenSet,
  signTokenSet,
} from './token-set-issuer.js';
import { newTokenId } from './token-signer.js';

/** Spec "Limits": an authorization code is valid for 10 minutes and single use. */
const AUTHORIZATION_CODE_TTL_SECONDS = 600;
/** 32 random bytes = 256 bits (RFC 6749 §10.10 asks that codes be unguessable; 128 bits would do), base64url. */
const CODE_BYTES = 32;

export interface NewAuthorizationCode {
  clientId: string;
  sellerId: string;
  redirectUri: string;
  scope: string;
  tenants: string[];
  codeChallenge: string | undefined;
  /** OpenID Connect (spec-notes I14): the request's nonce and when the seller signed in. */
  nonce?: string | undefined;
  authTime?: string | undefined;
}

type Platform = Pick<IdentityServices, 'database' | 'clock' | 'random' | 'signer' | 'config'>;

/**
 * Issues a code bound to client, redirect_uri, scopes, tenants, account and
 * PKCE challenge. Only its SHA-256 is stored. The token family is created now,
 * so that a second exchange can revoke what the first one issued (I6), even
 * while the first is still in flight.
 */
export async function issueAuthorizationCode(platform: Platform, input: NewAuthorizationCode): Promise<string> {
  const { database, clock, random } = platform;
  const code = randomToken(random, CODE_BYTES);
  const familyId = random.uuid();
  const now = clock.now();
  await database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('token_families')
      .values({
        id: familyId,
        client_id: input.clientId,
        seller_id: input.sellerId,
        created_at: now.toISOString(),
        revoked_at: null,
        revoked_reason: null,
      })
      .execute();
    await trx
      .insertInto('authorization_codes')
      .values({
        code_hash: sha256Hex(code),
        family_id: familyId,
        client_id: input.clientId,
        seller_id: input.sellerId,
        redirect_uri: input.redirectUri,
        scope: input.scope,
        tenants: JSON.stringify(input.tenants),
        code_challenge: input.codeChallenge ?? null,
        nonce: input.nonce ?? null,
        auth_time: input.authTime ?? null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000).toISOString(),
        used_at: null,
      })
      .execute();
  });
  return code;
}

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.6, S256: the challenge a verifier answers, as stored at /login. */
function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export interface CodeExchange {
  code: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  /** The client is public (`none`): its code must have been issued with PKCE (spec-notes I13). */
  publicClient?: boolean;
}

const INVALID_CODE = 'The authorization code is invalid, expired or already used';

/**
 * The authorization_code grant (RFC 6749 §4.1.3). The code is consumed by one
 * conditional UPDATE (… WHERE used_at IS NULL): of two concurrent exchanges
 * exactly one wins. On PostgreSQL that UPDATE also holds every check of the
 * code and records the refresh token's row in the same statement (D168); on
 * SQLite the code is read and checked first, then consumed in the transaction
 * that records the row. A code refused is read and its refusal told precisely;
 * a second exchange gets invalid_grant and revokes every token issued from the
 * code (RFC 6749 §4.1.2, spec-notes I6).
 */
export async function exchangeAuthorizationCode(platform: Platform, clientId: string, exchange: CodeExchange): Promise<TokenSet> {
  const { database, clock } = platform;
  const codeHash = sha256Hex(exchange.code);
  const checkedByStatement = dialectAdapter(database).supportsWritableCte;
  if (checkedByStatement) {
    const exchanged = await exchangeCheckedInOneStatement(platform, clientId, codeHash, exchange);
    if (exchanged) return exchanged;
  }
  const [read] = (await database.db.executeQuery(READ_CODE.query(database.db, database.dialect, { codeHash }))).rows;
  const now = clock.now();
  const row = await exchangeableCode(platform, read, clientId, exchange, now);
  // The statement refused what these checks accept only if the code changed meanwhile or the clock went back: refused.
  if (checkedByStatement) throw new OAuthError('invalid_grant', INVALID_CODE);

  const signed = await signCodeTokens(platform, row, now);
  const consume = { codeHash, now: now.toISOString() };
  const outcome = await database.db.transaction().execute(async (trx) => {
    const [consumed] = (await trx.executeQuery(CONSUME.query(trx, database.dialect, consume))).rows;
    return consumed ? recordTokenSet(trx, database.dialect, signed) : null;
  });
  if (!outcome) {
    // RFC 6749 §4.1.2: a second exchange of the code revokes every token issued from it.
    await revokeTokenFamily(database.db, row.family_id, 'authorization_code_reuse', now);
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  return outcome;
}

/**
 * The code `row` (undefined: no such code) if this exchange may take it; else throws the precise refusal,
 * and a code already used has its family revoked (RFC 6749 §4.1.2, spec-notes I6).
 */
async function exchangeableCode(
  platform: Platform,
  row: Selectable<Schema['authorization_codes']> | undefined,
  clientId: string,
  exchange: CodeExchange,
  now: Date,
): Promise<Selectable<Schema['authorization_codes']>> {
  // A code issued to another client is treated as unknown (RFC 6749 §4.1.3).
  if (!row || row.client_id !== clientId) throw new OAuthError('invalid_grant', INVALID_CODE);
  if (row.used_at !== null) {
    await revokeTokenFamily(platform.database.db, row.family_id, 'authorization_code_reuse', now);
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  // Spec Authentication §5: the redirect_uri of the exchange must equal the one used at consent.
  if (exchange.redirectUri !== row.redirect_uri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one used to obtain the code');
  }
  // spec-notes I13: a public client's code was always issued with a challenge; one without is never exchanged.
  if (exchange.publicClient && row.code_challenge === null) {
    throw new OAuthError('invalid_grant', 'A public client must use PKCE');
  }
  checkPkce(row.code_challenge, exchange.codeVerifier);
  if (now.getTime() >= new Date(row.expires_at).getTime()) throw new OAuthError('invalid_grant', INVALID_CODE);
  return row;
}

/** The tokens of an exchanged code's grant: an access and a refresh token, and an ID token for an `openid` grant. */
async function signCodeTokens(
  platform: Platform,
  row: Selectable<Schema['authorization_codes']>,
  now: Date,
  drawn?: DrawnRefreshToken,
): Promise<SignedTokenSet> {
  const signed = await signTokenSet(
    platform,
    {
      familyId: row.family_id,
      clientId: row.client_id,
      sellerId: row.seller_id,
      scope: row.scope,
      tenants: JSON.parse(row.tenants) as string[],
      parentJti: null,
    },
    drawn,
  );
  if (parseScopeString(row.scope).includes(OPENID_SCOPE)) {
    // spec-notes I14: an `openid` grant's code exchange also returns an ID token for the client.
    signed.tokenSet.id_token = await platform.signer.signIdToken({
      sellerId: row.seller_id,
      clientId: row.client_id,
      accessToken: signed.tokenSet.access_token,
      nonce: row.nonce ?? undefined,
      authTime: row.auth_time ? epochSeconds(new Date(row.auth_time)) : epochSeconds(now),
      ttlSeconds: platform.config.accessTokenTtlSeconds,
    });
  }
  return signed;
}

type CheckedExchangeValues = {
  codeHash: string;
  now: string;
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  jti: string;
  createdAt: string;
  expiresAt: string;
};

/**
 * The exchange's every check on the code written as the condition of the one
 * statement that consumes it (PostgreSQL's writable CTEs): the code is taken
 * only if it is unused, unexpired, this client's, obtained for this
 * redirect_uri, and bound to the challenge of the verifier sent (or to none
 * when none is sent); the refresh token's row, drawn before signing, is
 * inserted from it; the code's row comes back for the tokens. One statement
 * where the read, the checks and the consumption took two.
 */
const CONSUME_CHECKED = new CompiledOnce<Schema, CheckedExchangeValues, Selectable<Schema['authorization_codes']>>(
  'authorization code exchanged, checked by its statement',
  (db, slot) =>
    db
      .with('consumed', (qb) =>
        qb
          .updateTable('authorization_codes')
          .set({ used_at: slot('now') })
          .where('code_hash', '=', slot('codeHash'))
          .where('used_at', 'is', null)
          .where('client_id', '=', slot('clientId'))
          .where('redirect_uri', '=', slot('redirectUri'))
          // The challenge travelled in the authorization request's URL: comparing it is not comparing a secret.
          .where(sql<boolean>`code_challenge is not distinct from ${slot('challenge')}`)
          // Both ISO 8601 in UTC with milliseconds (toISOString), so text order is time order.
          .where('expires_at', '>', slot('now'))
          .returningAll(),
      )
      .with('recorded', (qb) =>
        recordRefreshTokenFrom(qb, 'consumed', {
          jti: slot('jti'),
          familyId: sql.ref('consumed.family_id'),
          parentJti: sql`null`,
          createdAt: slot('createdAt'),
          expiresAt: slot('expiresAt'),
        }).returning('jti'),
      )
      .selectFrom('consumed')
      .selectAll(),
);
const CONSUME_CHECKED_STATEMENT = 'feira_code_exchange_checked';

/**
 * PostgreSQL's code exchange when it can succeed in one statement
 * (`CONSUME_CHECKED`); null when the statement took nothing (or cannot say
 * why it would refuse), and the exchange then reads the code and answers
 * exactly as it always has: the precise refusal, and the family revoked on a
 * code used twice. A request whose verifier is malformed, or a public client
 * sending none, goes that way at once.
 */
async function exchangeCheckedInOneStatement(
  platform: Platform,
  clientId: string,
  codeHash: string,
  exchange: CodeExchange,
): Promise<TokenSet | null> {
  const verifier = exchange.codeVerifier;
  if (exchange.redirectUri === undefined) return null;
  if (verifier !== undefined && !CODE_VERIFIER.test(verifier)) return null;
  if (verifier === undefined && exchange.publicClient) return null;
  const { database, clock, random, config } = platform;
  const now = clock.now();
  const drawn: DrawnRefreshToken = { now, jti: newTokenId(random) };
  const query = CONSUME_CHECKED.query(database.db, database.dialect, {
    codeHash,
    now: now.toISOString(),
    clientId,
    redirectUri: exchange.redirectUri,
    challenge: verifier === undefined ? null : s256Challenge(verifier),
    ...drawnRefreshTokenRow(drawn, config.refreshTokenTtlSeconds),
  });
  const [row] = await runNamed(database, CONSUME_CHECKED_STATEMENT, query);
  if (!row) return null;
  return (await signCodeTokens(platform, row, now, drawn)).tokenSet;
}

/** The code's row, by the hash of the code presented. */
const READ_CODE = new CompiledOnce<Schema, { codeHash: string }, Selectable<Schema['authorization_codes']>>(
  'authorization code read',
  (db, slot) => db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', slot('codeHash')),
);

type ConsumeValues = { codeHash: string; now: string };

/** The code marked used, if it was not already (of two concurrent exchanges exactly one takes it). */
function consumeCode(db: Kysely<Schema>, slot: <K extends keyof ConsumeValues>(name: K) => ConsumeValues[K]) {
  return db
    .updateTable('authorization_codes')
    .set({ used_at: slot('now') })
    .where('code_hash', '=', slot('codeHash'))
    .where('used_at', 'is', null)
    .returning('code_hash');
}

const CONSUME = new CompiledOnce<Schema, ConsumeValues, { code_hash: string }>('authorization code consumed', consumeCode);

/** RFC 7636 §4.6 and spec-notes I8: S256 only; a verifier without a stored challenge is refused (no downgrade either way). */
function checkPkce(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined)
      throw new OAuthError('invalid_grant', 'code_verifier sent but no code_challenge was used at /login');
    return;
  }
  if (verifier === undefined)
    throw new OAuthError('invalid_grant', 'code_verifier is required: a code_challenge was used at /login');
  if (!CODE_VERIFIER.test(verifier))
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  if (!constantTimeEqual(s256Challenge(verifier), challenge))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
}
