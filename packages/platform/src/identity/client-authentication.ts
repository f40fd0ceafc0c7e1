import type { FastifyRequest } from 'fastify';
import { findClientById, verifyClientSecret } from '../admin/client-repository.js';
import { sha256Hex } from '../core/hashing.js';
import { OAuthError } from './oauth-error.js';
import type { TokenRequestParams } from './token-request-params.js';

// Compared against when the client_id is unknown, so an unknown id costs the same time as a wrong secret.
const UNKNOWN_CLIENT = { secretHash: sha256Hex('feira:no-such-client') };

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
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'Client authentication failed: malformed Authorization header');
  }
}

/**
 * Authenticates the client at the token endpoint (SPEC-DECISIONS I2): HTTP Basic
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
  const client = await findClientById(request.server.platform.database.db, id);
  const secretMatches = verifyClientSecret(client ?? UNKNOWN_CLIENT, secret);
  if (!client || !secretMatches) throw new OAuthError('invalid_client', 'Client authentication failed');
  return client.id;
}
