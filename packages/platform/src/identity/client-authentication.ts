import type { FastifyRequest } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { type ClientRow, findClientById, toClient, verifyClientSecret } from '../accounts/index.js';
import { sha256Hex } from '../core/hashing.js';
import { findNul } from '../http/nul-guard.js';
import type { Schema } from '../storage/schema.js';
import { countFailure, refusalAmong, type ThrottleKey, type ThrottlePolicy, type ThrottleRow } from './attempt-throttle.js';
import { originAllowedForClient } from './browser-origins.js';
import { OAuthError } from './oauth-error.js';
import { throttleAddress } from './throttle-address.js';
import type { TokenRequestParams } from './token-request-params.js';

// Compared against when the client_id is unknown, so an unknown id costs the same time as a wrong secret.
const UNKNOWN_CLIENT = { secretHash: sha256Hex('feira:no-such-client') };

/**
 * Throttle of client authentication at the token, revocation and introspection
 * endpoints (spec-notes I2, I21). A client secret is 256 random bits, so the
 * throttle is there to bound guessing, not to meter the owner: a success writes
 * nothing, a failure is counted (identity/attempt-throttle.ts: `countFailure`),
 * and a source over its limit is refused before its secret is compared
 * (`refusalAmong`), so a refused guess learns nothing. The client and its keys'
 * rows are read in one statement, which writes nothing.
 *
 * Every key includes the source address, none is the client_id alone: a
 * `client_id` is public (it is in every authorization URL), and a budget per
 * client_id let anyone who knew one lock its owner out by spending it on wrong
 * secrets from elsewhere. Failures from one address therefore never refuse a
 * right secret from another:
 * - per client_id and address: 20 failures per minute, so a guesser (or a
 *   misconfigured app) is stopped at the pair first;
 * - per address, whatever the client_id: 100 per minute, so one address
 *   cannot spread its guesses over many client_ids.
 * Nothing is reserved before the comparison, so wrong secrets sent in parallel
 * are all compared if they all pass the read before the failure that reaches
 * the limit is written: per window, a key's failures compared are at most its
 * allowance − 1 plus the attempts of that source then between their read and
 * their failure's write (docs/security.md, "How the client throttle bounds
 * guessing"). There is no per-client_id ceiling across addresses: refusing
 * before the comparison would refuse the owner too, and refusing only after it
 * would still tell the guesser whether the secret was right, so it would bound
 * nothing. Total guessing is bounded per address instead (an IPv6 /64 counts
 * as one, see throttle-address.ts), which against a 256-bit random secret is
 * ample. No growing back-off either: it would only lengthen what an address
 * shared with the owner (a NAT) could impose on them.
 */
export const CLIENT_PAIR_POLICY: ThrottlePolicy = { allowance: 20, windowSeconds: 60 };
export const CLIENT_ADDRESS_POLICY: ThrottlePolicy = { allowance: 100, windowSeconds: 60 };

/** The keys a client authentication is counted under, pair first: the pair's refusal is the one reported. */
export function clientThrottleKeys(clientId: string, ip: string): ThrottleKey[] {
  const address = throttleAddress(ip);
  return [
    // The address comes first and holds no space, so the key reads back unambiguously whatever the client_id holds.
    { key: `client-pair:${address} ${clientId}`, policy: CLIENT_PAIR_POLICY },
    { key: `client-address:${address}`, policy: CLIENT_ADDRESS_POLICY },
  ];
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function basicCredentials(header: string): { id: string; secret: string } {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (!match?.[1]) throw new OAuthError('invalid_client', 'Client authentication failed: malformed Authorization header');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'Client authentication failed: malformed Authorization header');
  let credentials: { id: string; secret: string };
  try {
    credentials = { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'Client authentication failed: malformed Authorization header');
  }
  // `%00` decodes to U+0000, which no client id or secret holds and PostgreSQL cannot even compare (the
  // lookup failed with a server error): the same check the NUL guard makes of the form body, made here
  // because the header is decoded after it ran.
  if (findNul(credentials) !== null) {
    throw new OAuthError('invalid_client', 'Client authentication failed: malformed Authorization header');
  }
  return credentials;
}

/** The client a request comes from: confidential (its secret checked) or public (identified by client_id alone). */
export interface AuthenticatedClient {
  id: string;
  publicClient: boolean;
}

/**
 * Authenticates the client at the token endpoint (spec-notes I2): HTTP Basic
 * or `client_id` + `client_secret` in the body, never both (RFC 6749 §2.3).
 * The secret is compared in constant time with the stored SHA-256.
 * With `allowPublic`, a `client_id` alone names a public client (spec-notes
 * I13: token and revocation endpoints); a confidential client must still
 * authenticate, and a public one never sends a secret.
 */
export async function authenticateClient(
  request: FastifyRequest,
  params: TokenRequestParams,
  options: { allowPublic?: boolean } = {},
): Promise<AuthenticatedClient> {
  const header = request.headers.authorization;
  if (options.allowPublic && header === undefined && params.get('client_secret') === undefined) {
    return publicClient(request, params.get('client_id'));
  }
  let id: string;
  let secret: string;
  if (header !== undefined) {
    if (params.get('client_secret') !== undefined) {
      throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or client_secret, not both');
    }
    ({ id, secret } = basicCredentials(header));
    const bodyId = params.get('client_id');
    if (bodyId !== undefined && bodyId !== id)
      throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials');
  } else {
    const bodyId = params.get('client_id');
    const bodySecret = params.get('client_secret');
    if (bodyId === undefined || bodySecret === undefined) {
      throw new OAuthError('invalid_client', 'Client authentication is required (client_id and client_secret, or HTTP Basic)');
    }
    id = bodyId;
    secret = bodySecret;
  }
  // Refused before anything is stored: a throttle key is never longer than an id Feira issues.
  if (id.length > 256) throw new OAuthError('invalid_client', 'Client authentication failed');
  const { database, clock } = request.server.platform;
  const keys = clientThrottleKeys(id, request.ip);
  const { clientRow, throttleRows } = await readClientAndThrottle(database.db, id, keys);
  // spec-notes I21: a source over its limit is refused before the secret is compared; the read writes nothing.
  const refused = refusalAmong(throttleRows, keys, clock.now());
  if (refused) {
    throw new OAuthError('temporarily_unavailable', 'Too many client authentication attempts; retry later', {
      retryAfterSeconds: refused.retryAfterSeconds,
    });
  }
  const client = clientRow && toClient(clientRow);
  const secretMatches = verifyClientSecret(client ?? UNKNOWN_CLIENT, secret);
  if (!client || !secretMatches) {
    // spec-notes I21: only a failure is written.
    await countFailure(database.db, keys, clock.now());
    throw new OAuthError('invalid_client', 'Client authentication failed');
  }
  if (client.tokenEndpointAuthMethod === 'none') throw new OAuthError('invalid_client', 'Client authentication failed');
  return { id: client.id, publicClient: false };
}

/** The throttle columns of the joined read, each null where no row of its key exists. */
interface JoinedThrottle {
  throttle_key: string | null;
  throttle_window_started_at: string | null;
  throttle_reserved: number | string | null;
  throttle_blocked_until: string | null;
}

/**
 * The client `id` names (undefined when none does) and the rows of its throttle keys, in one statement: a
 * one-row table of the id asked for, the client joined to it, and the keys' rows joined to both, so an
 * unknown id costs the same one statement as a known one. Several key rows repeat the client's columns.
 */
async function readClientAndThrottle(
  db: Kysely<Schema>,
  id: string,
  keys: readonly ThrottleKey[],
): Promise<{ clientRow: ClientRow | undefined; throttleRows: ThrottleRow[] }> {
  // Written as one SQL text: the query builder's work for this shape cost more than the statement it saves.
  const { rows } = await sql<ClientRow & JoinedThrottle>`
    select clients.*, auth_throttle.key as throttle_key,
      auth_throttle.window_started_at as throttle_window_started_at,
      auth_throttle.reserved as throttle_reserved, auth_throttle.blocked_until as throttle_blocked_until
    from (select cast(${id} as text) as id) as asked
    left join clients on clients.id = asked.id
    left join auth_throttle on auth_throttle.key in (${sql.join(keys.map((k) => k.key))})`.execute(db);
  const first = rows[0];
  const throttleRows: ThrottleRow[] = [];
  for (const row of rows) {
    if (row.throttle_key === null || row.throttle_window_started_at === null || row.throttle_reserved === null) continue;
    throttleRows.push({
      key: row.throttle_key,
      window_started_at: row.throttle_window_started_at,
      reserved: row.throttle_reserved,
      blocked_until: row.throttle_blocked_until,
    });
  }
  // A left join leaves the client's columns null when no client has the id. The row is made a client only
  // once the throttle has let the request through, so a refusal parses nothing.
  return { clientRow: first && first.id !== null ? (first as ClientRow) : undefined, throttleRows };
}

/**
 * A public client names itself by `client_id` alone (RFC 6749 §2.1, spec-notes I13). Nothing secret is checked, so
 * nothing is throttled: what protects its grant is PKCE (the code) and rotation (the refresh token). A confidential
 * client's id without its secret is `invalid_client`, exactly as before.
 */
async function publicClient(request: FastifyRequest, clientId: string | undefined): Promise<AuthenticatedClient> {
  if (clientId === undefined) {
    throw new OAuthError('invalid_client', 'Client authentication is required (client_id and client_secret, or HTTP Basic)');
  }
  const client = clientId.length > 256 ? undefined : await findClientById(request.server.platform.database.db, clientId);
  if (client?.tokenEndpointAuthMethod !== 'none') {
    throw new OAuthError('invalid_client', 'Client authentication is required (client_id and client_secret, or HTTP Basic)');
  }
  return { id: client.id, publicClient: true };
}

/** D45: a browser page calls the token and revocation endpoints only from an origin of the app it names. */
export async function refuseOriginOfAnotherApp(request: FastifyRequest, clientId: string): Promise<void> {
  if (!(await originAllowedForClient(request, clientId))) {
    throw new OAuthError('invalid_client', 'This application does not call from this origin (register a redirect URI on it)');
  }
}
