import { isScope, parseScopeString, type Scope } from '@feira/contract';
import type { Kysely } from 'kysely';
import { type ClientWithSecretHash, findClientById } from '../accounts/index.js';
import type { MessageKey } from '../i18n/i18n.js';
import type { Schema } from '../storage/schema.js';
import { redirectUriMatches } from './redirect-uri-match.js';

/** A validated `GET /login` request (spec "Consent by redirect", spec-notes I8–I10). */
export interface AuthorizationRequest {
  client: ClientWithSecretHash;
  redirectUri: string;
  /** Requested ∪ the client's default scopes (spec-notes I10), catalogue order. */
  scopes: Scope[];
  /** The `scope` parameter as sent (kept to carry the request across the pages). */
  requestedScope: string;
  chooseTenants: boolean;
  state: string | undefined;
  /** PKCE S256 challenge (RFC 7636), when sent; always sent by a public client (spec-notes I13). */
  codeChallenge: string | undefined;
  /** The `openid` scope was asked for: the token set then carries an ID token (spec-notes I14). */
  openid: boolean;
  /** OpenID Connect `nonce`, echoed in the ID token. */
  nonce: string | undefined;
}

/** The OpenID Connect scope: not an API scope of the catalogue, any client may ask for it (spec-notes I14). */
export const OPENID_SCOPE = 'openid';

export type AuthorizationRequestResult =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** RFC 6749 §4.1.2.1: unknown client or unregistered redirect_uri — show an error, never redirect. */
  | { kind: 'fatal'; message: string; messageKey: MessageKey }
  /** Any other error goes back to the (now trusted) redirect_uri with `error` and `state`. */
  | { kind: 'redirect'; redirectUri: string; error: string; description: string; state: string | undefined };

export type RawParams = Record<string, unknown>;

const MAX_PARAM_LENGTH = 2048;
// RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA-256(verifier)), 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** One value of a parameter: `undefined` when absent or empty (RFC 6749 §3.1), `null` when repeated or not a string. */
function singleParam(params: RawParams, name: string): string | undefined | null {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_PARAM_LENGTH) return null;
  return value;
}

/**
 * Validates the authorization request in the order RFC 6749 §4.1.2.1 asks:
 * first the client and the redirect_uri (exact, or a loopback one on any port: redirect-uri-match.ts), then the rest.
 */
export async function parseAuthorizationRequest(db: Kysely<Schema>, params: RawParams): Promise<AuthorizationRequestResult> {
  const clientId = singleParam(params, 'client_id');
  if (!clientId) return { kind: 'fatal', message: 'The request has no valid client_id.', messageKey: 'error.noClient' };
  const client = await findClientById(db, clientId);
  if (!client) return { kind: 'fatal', message: 'This application is not registered.', messageKey: 'error.unknownClient' };
  const redirectUri = singleParam(params, 'redirect_uri');
  if (!redirectUri) return { kind: 'fatal', message: 'The request has no valid redirect_uri.', messageKey: 'error.noRedirect' };
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return {
      kind: 'fatal',
      message: 'The redirect_uri is not registered for this application.',
      messageKey: 'error.unknownRedirect',
    };
  }

  const rawState = singleParam(params, 'state');
  const state = rawState ?? undefined;
  const fail = (error: string, description: string): AuthorizationRequestResult => ({
    kind: 'redirect',
    redirectUri,
    error,
    description,
    state,
  });
  if (rawState === null) return fail('invalid_request', 'state must be given once, at most 2048 characters');

  for (const name of ['response_type', 'scope', 'choose_tenants', 'code_challenge', 'code_challenge_method', 'nonce']) {
    if (singleParam(params, name) === null) return fail('invalid_request', `${name} must be given once`);
  }
  const responseType = singleParam(params, 'response_type');
  if (!responseType) return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');

  // spec-notes I9: absent means `true` (the seller picks stores), since standard OAuth libraries never send it;
  // only an explicit `false` asks for a personal grant.
  const chooseTenantsParam = singleParam(params, 'choose_tenants') ?? 'true';
  if (chooseTenantsParam !== 'true' && chooseTenantsParam !== 'false') {
    return fail('invalid_request', 'choose_tenants must be true or false');
  }

  const codeChallenge = singleParam(params, 'code_challenge') ?? undefined;
  const method = singleParam(params, 'code_challenge_method') ?? undefined;
  if (codeChallenge !== undefined || method !== undefined) {
    // spec-notes I8: S256 only; `plain` (RFC 7636's default when the method is absent) would be a downgrade.
    if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    if (!codeChallenge || !S256_CHALLENGE.test(codeChallenge)) {
      return fail('invalid_request', 'code_challenge must be a 43-character base64url S256 challenge');
    }
  }
  // spec-notes I13: a public client has no secret, so only PKCE binds the code to the app that asked for it.
  if (client.tokenEndpointAuthMethod === 'none' && codeChallenge === undefined) {
    return fail('invalid_request', 'A public client must use PKCE: code_challenge with code_challenge_method=S256');
  }

  const requestedScope = singleParam(params, 'scope') ?? '';
  const asked = parseScopeString(requestedScope);
  const openid = asked.includes(OPENID_SCOPE);
  const requested = asked.filter((s) => s !== OPENID_SCOPE);
  const unknown = requested.filter((s) => !isScope(s) || !client.scopes.includes(s));
  if (unknown.length > 0) return fail('invalid_scope', `Scope not allowed for this client: ${unknown.join(' ').slice(0, 200)}`);
  const merged = new Set<string>([...requested, ...client.defaultScopes]);
  // spec-notes I10: every default scope must also be among the client's configured scopes.
  if ([...merged].some((s) => !isScope(s) || !client.scopes.includes(s))) {
    return fail('invalid_scope', 'The client default scopes are not among its configured scopes');
  }
  // `openid` alone is a sign-in: its token reads /userinfo only.
  if (merged.size === 0 && !openid) return fail('invalid_scope', 'scope is required');
  const nonce = singleParam(params, 'nonce') ?? undefined;
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      // Every merged scope is one of the client's (checked above): keep the client's order, so equal grants read equal.
      scopes: client.scopes.filter((s) => merged.has(s)),
      requestedScope,
      chooseTenants: chooseTenantsParam === 'true',
      state,
      codeChallenge,
      openid,
      nonce,
    },
  };
}

/** The request's parameters, to carry it across the pages (hidden fields, redirects) and validate it again each time. */
export function authorizationParams(request: AuthorizationRequest): Record<string, string> {
  const params: Record<string, string> = {
    client_id: request.client.id,
    redirect_uri: request.redirectUri,
    response_type: 'code',
    choose_tenants: String(request.chooseTenants),
  };
  if (request.requestedScope) params.scope = request.requestedScope;
  if (request.state !== undefined) params.state = request.state;
  if (request.codeChallenge !== undefined) {
    params.code_challenge = request.codeChallenge;
    params.code_challenge_method = 'S256';
  }
  if (request.nonce !== undefined) params.nonce = request.nonce;
  return params;
}

/**
 * `redirect_uri` plus `code`/`error` and `state` (RFC 6749 §4.1.2), keeping any query the registered URI has,
 * and `iss` on every response, success or error (RFC 9207 §2: lets the client detect a mix-up between servers).
 */
export function redirectBack(issuer: string, redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.toString();
}
