import type { FastifyRequest } from 'fastify';
import { findClientById, verifyClientSecret } from '../accounts/client-repository.js';
import { sha256Hex } from '../core/hashing.js';
import { findNul } from '../http/nul-guard.js';
import { reserveAttempt, settleAttempt, type ThrottleKey, type ThrottlePolicy } from './attempt-throttle.js';
import { OAuthError } from './oauth-error.js';
import type { TokenRequestParams } from './token-request-params.js';

// Compared against when the client_id is unknown, so an unknown id costs the same time as a wrong secret.
const UNKNOWN_CLIENT = { secretHash: sha256Hex('feira:no-such-client') };

/**
 * Throttle of client authentication at the token endpoint (issue 17 §1): 100
 * attempts in flight or failed per minute, per client_id and per address. A
 * success gives its reservation back, so a busy integration is limited only by
 * its concurrency, never by its rate. No growing back-off: client secrets are
 * 256-bit random values no throttle is needed to protect, and a back-off would
 * let anyone who knows a client_id lock the integration out for minutes.
 */
export const CLIENT_AUTH_POLICY: ThrottlePolicy = { allowance: 100, windowSeconds: 60 };

export function clientThrottleKeys(clientId: string, address: string): ThrottleKey[] {
  return [
    { key: `client:${clientId}`, policy: CLIENT_AUTH_POLICY },
    { key: `client-address:${address}`, policy: CLIENT_AUTH_POLICY },
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

/**
 * Authenticates the client at the token endpoint (spec-notes I2): HTTP Basic
 * or `client_id` + `client_secret` in the body, never both (RFC 6749 §2.3).
 * The secret is compared in constant time with the stored SHA-256.
 * Returns the authenticated client_id.
 */
export async function authenticateClient(request: FastifyRequest, params: TokenRequestParams): Promise<string> {
  const header = request.headers.authorization;
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
  // issue 17 §1: the attempt is reserved before the secret is compared, per client_id and per address.
  const reservation = await reserveAttempt(database.db, clientThrottleKeys(id, request.ip), clock.now());
  if (!reservation.admitted) {
    throw new OAuthError('temporarily_unavailable', 'Too many client authentication attempts; retry later', {
      retryAfterSeconds: reservation.retryAfterSeconds,
    });
  }
  let client: Awaited<ReturnType<typeof findClientById>>;
  try {
    client = await findClientById(database.db, id);
  } catch (error) {
    await settleAttempt(database.db, reservation, 'unchecked', clock.now());
    throw error;
  }
  const secretMatches = verifyClientSecret(client ?? UNKNOWN_CLIENT, secret);
  await settleAttempt(database.db, reservation, client && secretMatches ? 'success' : 'failure', clock.now());
  if (!client || !secretMatches) throw new OAuthError('invalid_client', 'Client authentication failed');
  return client.id;
}
