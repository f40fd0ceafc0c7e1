import type { Scope } from '@feira/contract';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
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

function unauthorized(description: string, error = 'invalid_token'): PlatformError {
  return new PlatformError('UNAUTHORIZED', {
    message: description,
    // RFC 6750 §3: the challenge names the error; no error code when no token was sent at all.
    headers: {
      'www-authenticate': error
        ? `Bearer realm="feira", error="${error}", error_description="${description}"`
        : 'Bearer realm="feira"',
    },
  });
}

/** Whether the URL carries `access_token` (RFC 6750 §2.3's query method, which Feira does not read). */
function tokenInQuery(url: string): boolean {
  const query = url.indexOf('?');
  return query >= 0 && new URLSearchParams(url.slice(query + 1)).has('access_token');
}

/**
 * A token sent as `?access_token=` (passport-oauth2's default, RFC 6750 §2.3): refused, since URLs reach logs
 * and histories (RFC 6750 §5.3), with a message that names the header to send it in rather than "missing".
 */
function tokenInQueryRefused(): PlatformError {
  const message = 'The access token came in the query (access_token): send it in the Authorization header as "Bearer <token>"';
  return new PlatformError('UNAUTHORIZED', {
    message,
    headers: { 'www-authenticate': `Bearer realm="feira", error="invalid_request", error_description="${message}"` },
    details: [
      {
        field: 'access_token',
        location: 'query',
        message: 'is not read: use the Authorization header',
        slug: 'INVALID_PARAMETER_VALUE',
      },
    ],
  });
}

/** 403 for a tenant the token does not cover (spec-notes I9); RFC 6750 §3.1 names that insufficient_scope. */
function forbidden(message: string, field: string, location: 'header' | 'query' = 'header') {
  return new PlatformError('FORBIDDEN', {
    message,
    headers: { 'www-authenticate': `Bearer realm="feira", error="insufficient_scope", error_description="${message}"` },
    details: [{ field, location, message, slug: 'INVALID_PARAMETER_VALUE' }],
  });
}

/** spec-notes I9: a personal grant has no store; say how to get a token that has one. */
const PERSONAL_TOKEN_MESSAGE =
  'This token was granted without a store (choose_tenants=false): start the authorization again without choose_tenants, or with choose_tenants=true, and pick a store';

/**
 * spec-notes I9 / RFC 6750 §3.1: a multi-store token that names no store is a malformed request
 * (`invalid_request`, 400), not a missing scope: libraries read `insufficient_scope` as "ask for more scopes".
 */
function tenantHeaderRequired(): PlatformError {
  const message = 'The token covers several stores: name the one this call acts for in the X-Tenant-Id header';
  return new PlatformError('BAD_REQUEST', {
    message,
    headers: { 'www-authenticate': `Bearer realm="feira", error="invalid_request", error_description="${message}"` },
    details: [
      { field: 'X-Tenant-Id', location: 'header', message: 'required for a token with several stores', slug: 'REQUIRED' },
    ],
  });
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

/**
 * The request's bearer access token, verified (signature, `typ`, `exp`, `iss`, `aud`), of a
 * grant not revoked, and used from an origin of its app (D45). The guard below and
 * /userinfo share it; each refusal is a 401 with the RFC 6750 challenge.
 */
export async function verifiedAccessToken(
  request: FastifyRequest,
  beforeDatabase?: (claims: TokenClaims) => void,
): Promise<TokenClaims> {
  const { signer, database } = request.server.identity;
  const header = request.headers.authorization;
  if (!header) {
    if (tokenInQuery(request.url)) throw tokenInQueryRefused();
    throw unauthorized('Missing bearer token', '');
  }
  const token = bearerToken(header);
  if (!token) throw unauthorized('Malformed Authorization header', 'invalid_request');
  let claims: TokenClaims;
  try {
    claims = await signer.verify(token, ACCESS_TOKEN_TYP);
  } catch (error) {
    if (error instanceof TokenVerificationError) {
      throw unauthorized(error.code === 'ERR_TOKEN_EXPIRED' ? 'Access token expired' : 'Access token invalid');
    }
    throw error;
  }
  // What the caller can decide from the signed claims alone, before the first statement (D123).
  beforeDatabase?.(claims);
  if (!(await tokenFamilyIsLive(database.db, claims.fid))) throw unauthorized('Access token revoked');
  // D45: from a browser on another origin, only the token's own app's origins (servers send no Origin: no query).
  if (request.headers.origin !== undefined && !(await originAllowedForClient(request, claims.client_id))) {
    throw new PlatformError('FORBIDDEN', {
      message: "This application's tokens are not used from this origin",
      details: [
        {
          field: 'Origin',
          location: 'header',
          message: 'is not an origin of the token’s application',
          slug: 'INVALID_PARAMETER_VALUE',
        },
      ],
    });
  }
  return claims;
}

/** The store a call acts for (spec-notes I9): the one named in `X-Tenant-Id`, else the token's only one; or the refusal. */
function tenantOf(claims: TokenClaims, requested: string | string[] | undefined): string | PlatformError {
  if (typeof requested === 'string' && requested.length > 0) {
    return claims.tenants.includes(requested) ? requested : forbidden('The token is not granted for this tenant', 'X-Tenant-Id');
  }
  if (claims.tenants.length === 1) return claims.tenants[0] as string;
  if (claims.tenants.length === 0) return forbidden(PERSONAL_TOKEN_MESSAGE, 'X-Tenant-Id');
  return tenantHeaderRequired();
}

function accessTokenGuardFor(scope: Scope | null): preHandlerAsyncHookHandler {
  return async function accessTokenGuard(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const claims = await verifiedAccessToken(request, (signed) => {
      // D123: a call this process saw its app go over the limit for this store with (right scope, known
      // store) gets its 429 before the revocation read; any other refusal is left to the checks below.
      if (scope && !signed.scope.split(' ').includes(scope)) return;
      const tenantId = tenantOf(signed, request.headers['x-tenant-id']);
      if (typeof tenantId === 'string') refuseRememberedApiRequest(request, reply, signed.client_id, tenantId);
    });
    const scopes = new Set(claims.scope.split(' ').filter(Boolean));
    if (scope && !scopes.has(scope)) {
      throw new PlatformError('FORBIDDEN', {
        message: `This operation needs the scope ${scope}`,
        headers: { 'www-authenticate': `Bearer realm="feira", error="insufficient_scope", scope="${scope}"` },
        details: [{ field: 'scope', location: 'header', message: `missing scope ${scope}`, slug: 'INSUFFICIENT_SCOPE' }],
      });
    }

    const tenantId = tenantOf(claims, request.headers['x-tenant-id']);
    if (tenantId instanceof PlatformError) throw tenantId;
    // spec-notes I20: the app's bucket for this store, once the call is known to be the app's and the store's.
    await admitApiRequest(request, reply, claims.client_id, tenantId);
    request.seller = {
      sellerId: claims.sub,
      clientId: claims.client_id,
      scopes,
      tenants: claims.tenants,
      tenantId,
      claims,
    };
  };
}
