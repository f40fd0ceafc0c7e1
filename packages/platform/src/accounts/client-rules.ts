import { isScope, type Scope } from '@feira/contract';
import { refuseField } from '../core/refusals.js';
import type { NewClient, TokenEndpointAuthMethod } from './client-repository.js';

/**
 * An absolute http(s) URL without fragment. RFC 6749 §3.1.2 requires redirect
 * URIs to be absolute and fragment-free; other schemes (javascript:, data:) are
 * refused because these URLs end up in links and redirects the seller follows.
 */
function isHttpUrlWithoutFragment(value: string): boolean {
  if (!URL.canParse(value) || value.includes('#')) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'https:' || protocol === 'http:') && hostname.length > 0;
}

/**
 * A client registration as received, already shaped by its JSON schema (the
 * admin API's `CreateClientBody`): the accounts layer names what it reads
 * instead of importing the HTTP layer's schema.
 */
export interface ClientRegistration {
  name: string;
  redirect_uris: readonly string[];
  scopes: readonly string[];
  default_scopes: readonly string[];
  terms_of_use_url?: string | undefined;
  privacy_policy_url?: string | undefined;
  token_endpoint_auth_method?: TokenEndpointAuthMethod | undefined;
}

/** OpenID Connect's scope: every client may ask for it (spec-notes I14), so a registration naming it is accepted and it is not stored (D108). */
const OPENID = 'openid';

/**
 * The rules a client registration must meet beyond its JSON schema: scopes from
 * the catalogue (spec-notes I11), default scopes among the client's scopes
 * (spec-notes I10), URLs absolute. Each failure is a 422 naming the field.
 * `openid` is accepted in both lists and left out of what is stored (D108).
 */
export function validateNewClient(body: ClientRegistration): NewClient {
  body.redirect_uris.forEach((uri, index) => {
    if (!isHttpUrlWithoutFragment(uri)) throw refuseField('ACCOUNT_URL_INVALID', `redirect_uris.${index}`, 'body');
  });
  const scopes: Scope[] = [];
  body.scopes.forEach((scope, index) => {
    if (scope === OPENID) return;
    if (!isScope(scope)) throw refuseField('ACCOUNT_SCOPE_UNKNOWN', `scopes.${index}`, 'body');
    scopes.push(scope);
  });
  if (scopes.length === 0) throw refuseField('ACCOUNT_API_SCOPE_REQUIRED', 'scopes', 'body');
  const defaultScopes: Scope[] = [];
  body.default_scopes.forEach((scope, index) => {
    if (scope === OPENID) return;
    if (!isScope(scope)) throw refuseField('ACCOUNT_SCOPE_UNKNOWN', `default_scopes.${index}`, 'body');
    if (!scopes.includes(scope)) throw refuseField('ACCOUNT_DEFAULT_SCOPE_NOT_GRANTED', `default_scopes.${index}`, 'body');
    defaultScopes.push(scope);
  });
  for (const field of ['terms_of_use_url', 'privacy_policy_url'] as const) {
    const value = body[field];
    if (value !== undefined && !isHttpUrlWithoutFragment(value)) throw refuseField('ACCOUNT_URL_INVALID', field, 'body');
  }
  return {
    name: body.name,
    redirectUris: [...body.redirect_uris],
    scopes,
    defaultScopes,
    termsOfUseUrl: body.terms_of_use_url ?? null,
    privacyPolicyUrl: body.privacy_policy_url ?? null,
    tokenEndpointAuthMethod: body.token_endpoint_auth_method ?? 'client_secret_basic',
  };
}
