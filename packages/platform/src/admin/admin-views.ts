import type { ApiRateLimit, ClientApp, Seller } from '../accounts/index.js';
import { type ClientView, ErrorResponse, type SellerView } from './admin-schemas.js';

/** A seller as the admin API shows it: never the password hash. */
export function sellerView(seller: Seller): SellerView {
  return {
    id: seller.id,
    name: seller.name,
    login: seller.login,
    tenants: seller.tenants.map((t) => ({ id: t.id, name: t.name })),
    created_at: seller.createdAt,
  };
}

/** A client application as the admin API shows it: never the secret (only its creation answers with it). */
export function clientView(client: ClientApp, defaultRateLimit: ApiRateLimit): ClientView {
  const rateLimit = client.rateLimit ?? defaultRateLimit;
  return {
    client_id: client.id,
    name: client.name,
    redirect_uris: client.redirectUris,
    scopes: client.scopes,
    default_scopes: client.defaultScopes,
    terms_of_use_url: client.termsOfUseUrl,
    privacy_policy_url: client.privacyPolicyUrl,
    created_at: client.createdAt,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    allowed_origins: client.allowedOrigins,
    rate_limit: {
      requests_per_second: rateLimit.requestsPerSecond,
      burst: rateLimit.burst,
      source: client.rateLimit ? 'app' : 'default',
    },
  };
}

/** The refusals every admin route can answer with. */
export const ADMIN_ERRORS = { 401: ErrorResponse, 422: ErrorResponse };

export const ADMIN_LIST_DESCRIPTION =
  'List conventions of the platform: `_limit` (default 20, max 100), `_offset`, `_paginate=cursor` with `_next_token`, ' +
  '`_sort=field:asc|desc`, filters `field=`, `field__like=`, `field__in=`, `field__gt/gte/lt/lte=`.';

/** The OpenAPI security requirement of every admin route. */
export const ADMIN_SECURITY = [{ adminToken: [] }];
