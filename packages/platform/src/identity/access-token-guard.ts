import type { Scope } from '@feira/contract';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { refuse, refuseField } from '../core/refusals.js';
import { bearerToken } from '../http/bearer-token.js';
import { GUARD_SCOPE } from '../http/openapi-document.js';
import { admitApiRequest, refuseRememberedApiRequest } from './api-rate-limit-guard.js';
import { originAllowedForClient } from './browser-origins.js';
import { tokenFamilyIsLive } from './token-family-state.js';
import { ACCESS_TOKEN_TYP, type TokenClaims, TokenVerificationError } from './token-signer.js';

/** Who is calling a platform API, resolved from the bearer token (spec-notes I3, I9). */
interface SellerContext {
  sellerId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  /** Every tenant the token was granted for. */
  tenants: readonly string[];
  /** The tenant this call acts for: the only one, or the one named in `X-Tenant-Id`. */
  tenantId: string;
  claims: TokenClaims;
}

declare module 'fastify' {
  interface FastifyRequest {
    seller: SellerContext | null;
  }
}

/** Whether the URL carries `access_token` (RFC 6750 §2.3's query method, which Feira does not read). */
function tokenInQuery(url: string): boolean {
  const query = url.indexOf('?');
  return query >= 0 && new URLSearchParams(url.slice(query + 1)).has('access_token');
}

/**
 * A preHandler for platform APIs: verifies the access token (signature, `typ`,
 * `exp`, `iss`, `aud`), refuses revoked token families, resolves the tenant
 * (spec-notes I9), checks the scope and takes the request from the app's
 * rate-limit bucket for that store (spec-notes I20). Sets `request.seller`.
 */
export function requireAccessToken(scope: Scope | null): preHandlerAsyncHookHandler {
  // The OpenAPI document reads the route's scope from the guard (http/openapi-document.ts).
  return Object.assign(accessTokenGuardFor(scope), { [GUARD_SCOPE]: scope });
}

/** The request's bearer access token with its signature, `typ`, `exp`, `iss` and `aud` checked: no statement yet. */
async function signedAccessToken(request: FastifyRequest): Promise<TokenClaims> {
  const header = request.headers.authorization;
  if (!header) {
    // passport-oauth2's default (RFC 6750 §2.3) is refused, since URLs reach logs and histories (RFC 6750 §5.3),
    // with a message that names the header to send it in rather than "missing".
    if (tokenInQuery(request.url)) throw refuseField('IDENTITY_TOKEN_IN_QUERY', 'access_token', 'query');
    throw refuse('IDENTITY_TOKEN_MISSING');
  }
  const token = bearerToken(header);
  if (!token) throw refuse('IDENTITY_AUTHORIZATION_MALFORMED');
  try {
    return await request.server.identity.signer.verify(token, ACCESS_TOKEN_TYP);
  } catch (error) {
    if (error instanceof TokenVerificationError) {
      throw refuse(error.code === 'ERR_TOKEN_EXPIRED' ? 'IDENTITY_TOKEN_EXPIRED' : 'IDENTITY_TOKEN_INVALID');
    }
    throw error;
  }
}

/** A revoked token family is refused before any other refusal that needs the database or follows from the claims. */
async function refuseRevoked(request: FastifyRequest, claims: TokenClaims): Promise<void> {
  if (!(await tokenFamilyIsLive(request.server.identity.database.db, claims.fid))) throw refuse('IDENTITY_TOKEN_REVOKED');
}

/**
 * The request's bearer access token, verified (signature, `typ`, `exp`, `iss`, `aud`), of a
 * grant not revoked (spec-notes I6), used from an origin of its app (D45), and admitted by
 * the app's rate-limit bucket `bucketOf` names (spec-notes I20). The guard below and
 * /userinfo share it; each token refusal is a 401 with the RFC 6750 challenge.
 *
 * A call its claims alone refuse (`bucketOf` answers a refusal: a scope, a store) still reads
 * the revocation first, so a revoked token is always told so. A call this process remembers
 * over its app's limit gets its 429 before any statement (D123). Any other call costs one
 * statement before its route: the bucket's take, which reads the revocation too (D162).
 */
export async function admittedAccessToken(
  request: FastifyRequest,
  reply: FastifyReply,
  bucketOf: (claims: TokenClaims) => string | PlatformError,
): Promise<{ claims: TokenClaims; bucket: string }> {
  const claims = await signedAccessToken(request);
  const bucket = bucketOf(claims);
  if (bucket instanceof PlatformError) {
    await refuseRevoked(request, claims);
    throw bucket;
  }
  await refuseRememberedApiRequest(request, reply, claims.client_id, bucket);
  // D45: from a browser on another origin, only the token's own app's origins (servers send no Origin: no query).
  if (request.headers.origin !== undefined) {
    await refuseRevoked(request, claims);
    if (!(await originAllowedForClient(request, claims.client_id))) {
      throw refuseField('IDENTITY_ORIGIN_REFUSED', 'Origin', 'header');
    }
  }
  await admitApiRequest(request, reply, claims, bucket);
  return { claims, bucket };
}

/** The store a call acts for (spec-notes I9): the one named in `X-Tenant-Id`, else the token's only one; or the refusal. */
function tenantOf(claims: TokenClaims, requested: string | string[] | undefined): string | PlatformError {
  if (typeof requested === 'string' && requested.length > 0) {
    return claims.tenants.includes(requested) ? requested : refuseField('IDENTITY_STORE_NOT_GRANTED', 'X-Tenant-Id', 'header');
  }
  if (claims.tenants.length === 1) return claims.tenants[0] as string;
  if (claims.tenants.length === 0) return refuseField('IDENTITY_STORELESS_TOKEN', 'X-Tenant-Id', 'header');
  return refuseField('IDENTITY_STORE_HEADER_REQUIRED', 'X-Tenant-Id', 'header');
}

function accessTokenGuardFor(scope: Scope | null): preHandlerAsyncHookHandler {
  return async function accessTokenGuard(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    // spec-notes I20: the app's bucket for the store the call acts for, once it is known to be the app's and the store's.
    const { claims, bucket } = await admittedAccessToken(request, reply, (signed) =>
      scope && !signed.scope.split(' ').includes(scope)
        ? refuseField('IDENTITY_SCOPE_MISSING', 'scope', 'header', { scope })
        : tenantOf(signed, request.headers['x-tenant-id']),
    );
    request.seller = {
      sellerId: claims.sub,
      clientId: claims.client_id,
      scopes: new Set(claims.scope.split(' ').filter(Boolean)),
      tenants: claims.tenants,
      tenantId: bucket,
      claims,
    };
  };
}
