import { createHash, randomBytes } from 'node:crypto';
import { type IntrospectionResponse, OAUTH_ERROR_CODES, type OAuthErrorCode, type TokenSet } from '@feira/contract';
import { DEFAULT_TIMEOUT_MS, type RetryOptions, sendWithRetries } from '../http/retrying-fetch.js';
import { OAuthError } from './oauth-error.js';

/**
 * Where the identity provider is and who your application is.
 *
 * @example
 * ```ts
 * const client: OAuthClientCredentials = {
 *   authUrl: 'https://localhost:8080',
 *   clientId: process.env.FEIRA_CLIENT_ID!,
 *   clientSecret: process.env.FEIRA_CLIENT_SECRET!,
 * };
 * ```
 */
export interface OAuthClientCredentials {
  /** {auth_url}: the identity provider's address (spec-notes I1). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Time limit of one call to the identity provider. Default 30 000 ms (D54). */
  timeoutMs?: number;
  /**
   * Retries of `revoke` and `introspect` (idempotent) on 429/503, network failures
   * and timeouts. A code exchange or a refresh is sent once: a code is single use
   * and a refresh token is rotated (D54).
   */
  retry?: RetryOptions;
}

/**
 * A PKCE pair (RFC 7636, S256; spec-notes I8). Keep `codeVerifier` on your
 * server, next to the `state`, until the callback.
 *
 * @example
 * ```ts
 * const pkce = createPkce();
 * const url = authorizationUrl({ authUrl, clientId, redirectUri, scopes, state, pkce });
 * // … later, in the callback:
 * await exchangeCode({ authUrl, clientId, clientSecret, code, redirectUri, codeVerifier: pkce.codeVerifier });
 * ```
 */
export interface Pkce {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
}

/**
 * Creates a PKCE verifier (32 random bytes, base64url) and its S256 challenge.
 *
 * @example
 * ```ts
 * const { codeVerifier, codeChallenge } = createPkce();
 * ```
 */
export function createPkce(): Pkce {
  const codeVerifier = randomBytes(32).toString('base64url');
  return {
    codeVerifier,
    codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    codeChallengeMethod: 'S256',
  };
}

/**
 * Options of `authorizationUrl`.
 *
 * @example
 * ```ts
 * const input: AuthorizationUrlInput = {
 *   authUrl: 'https://localhost:8080', clientId: 'client_abc', redirectUri: 'https://app.example/callback',
 *   scopes: ['open:order-order:read'], state: 'seller42', chooseTenants: true,
 * };
 * ```
 */
export interface AuthorizationUrlInput {
  authUrl: string;
  clientId: string;
  /** Must be registered on the client, and sent again, identical, in `exchangeCode` (spec "Authentication" rule 5). */
  redirectUri: string;
  /** Scopes requested; the client's default scopes are added by the platform (spec-notes I10). */
  scopes: readonly string[];
  /** Echoed on the callback: use it to recognise the seller and to refuse forged callbacks. */
  state?: string;
  /** `true` (default, also what the platform assumes when the parameter is absent): the seller picks its stores; `false`: a personal grant with no tenant (spec-notes I9). */
  chooseTenants?: boolean;
  /** A PKCE pair from `createPkce()`; only its challenge goes into the URL. */
  pkce?: Pick<Pkce, 'codeChallenge'>;
}

/**
 * Builds the address to send the seller's browser to: `GET {auth_url}/login`
 * with `response_type=code` (spec "Consent by redirect").
 *
 * @example
 * ```ts
 * import { authorizationUrl } from '@feira/sdk';
 *
 * reply.redirect(authorizationUrl({
 *   authUrl: 'https://localhost:8080',
 *   clientId: process.env.FEIRA_CLIENT_ID!,
 *   redirectUri: 'http://localhost:3000/callback',
 *   scopes: ['open:ticket:read', 'open:webhook:write'],
 *   state: sessionState,
 * }));
 * ```
 */
export function authorizationUrl(input: AuthorizationUrlInput): string {
  const url = new URL('/login', input.authUrl);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('scope', input.scopes.join(' '));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('choose_tenants', String(input.chooseTenants ?? true));
  if (input.state !== undefined) url.searchParams.set('state', input.state);
  if (input.pkce) {
    url.searchParams.set('code_challenge', input.pkce.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

const isOAuthErrorCode = (value: unknown): value is OAuthErrorCode =>
  typeof value === 'string' && (OAUTH_ERROR_CODES as readonly string[]).includes(value);

function isTokenSet(value: unknown): value is TokenSet {
  const v = value as Partial<TokenSet> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.access_token === 'string' &&
    typeof v.refresh_token === 'string' &&
    typeof v.token_type === 'string' &&
    Number.isInteger(v.expires_in) &&
    (v.expires_in as number) > 0 &&
    typeof v.scope === 'string' &&
    Number.isInteger(v.created_at)
  );
}

/**
 * POSTs to an endpoint of the identity provider and returns the parsed answer when
 * `accept` takes it, or throws an OAuthError (RFC 6749 §5.2 body). Never logs a token or the secret.
 */
async function authServerRequest<T>(
  credentials: OAuthClientCredentials,
  path: string,
  body: string,
  contentType: string,
  accept: (status: number, parsed: unknown) => T | undefined,
  idempotent = false,
): Promise<T> {
  const { response, text } = await sendWithRetries(
    new URL(path, credentials.authUrl).toString(),
    { method: 'POST', headers: { 'content-type': contentType, accept: 'application/json' }, body },
    {
      fetch: credentials.fetch ?? fetch,
      timeoutMs: credentials.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: credentials.retry ?? {},
      idempotent,
    },
  );
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new OAuthError('invalid_response', response.status, `${path} answered HTTP ${response.status} without JSON`);
  }
  if (response.ok) {
    const accepted = accept(response.status, parsed);
    if (accepted !== undefined) return accepted;
  }
  const error = (parsed as { error?: unknown; error_description?: unknown } | null | undefined) ?? {};
  if (isOAuthErrorCode(error.error)) {
    throw new OAuthError(
      error.error,
      response.status,
      typeof error.error_description === 'string' ? error.error_description : undefined,
    );
  }
  throw new OAuthError('invalid_response', response.status, `${path} answered HTTP ${response.status} with an unexpected body`);
}

function tokenRequest(credentials: OAuthClientCredentials, body: string, contentType: string): Promise<TokenSet> {
  return authServerRequest(credentials, '/oauth/token', body, contentType, (_status, parsed) =>
    isTokenSet(parsed) ? parsed : undefined,
  );
}

/**
 * Exchanges the callback's `code` for tokens (spec "Code exchange": a JSON body
 * with the five fields). Call it once per code: a code is single use and lasts
 * 10 minutes (spec-notes I6).
 *
 * @throws {OAuthError} `invalid_grant` for a used, expired or mismatched code; `invalid_client` for bad credentials.
 * @example
 * ```ts
 * import { exchangeCode } from '@feira/sdk';
 *
 * const tokens = await exchangeCode({
 *   authUrl: 'https://localhost:8080',
 *   clientId: process.env.FEIRA_CLIENT_ID!,
 *   clientSecret: process.env.FEIRA_CLIENT_SECRET!,
 *   code: String(request.query.code),
 *   redirectUri: 'http://localhost:3000/callback',
 * });
 * ```
 */
export async function exchangeCode(
  input: OAuthClientCredentials & { code: string; redirectUri: string; codeVerifier?: string },
): Promise<TokenSet> {
  return tokenRequest(
    input,
    JSON.stringify({
      grant_type: 'authorization_code',
      client_id: input.clientId,
      client_secret: input.clientSecret,
      redirect_uri: input.redirectUri,
      code: input.code,
      ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
    }),
    'application/json',
  );
}

/**
 * Gets a new token set with a refresh token (spec "Token refresh": a form body).
 * Every refresh returns a new refresh token (spec-notes I5): store it and
 * drop the old one. `TokenManager` does this for you.
 *
 * @throws {OAuthError} `invalid_grant` when the refresh token is expired, revoked or reused.
 * @example
 * ```ts
 * import { refresh } from '@feira/sdk';
 *
 * const next = await refresh({ authUrl, clientId, clientSecret, refreshToken: saved.refresh_token });
 * await save(next); // next.refresh_token replaces the old one
 * ```
 */
export async function refresh(input: OAuthClientCredentials & { refreshToken: string }): Promise<TokenSet> {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: input.clientId,
    client_secret: input.clientSecret,
    refresh_token: input.refreshToken,
  });
  return tokenRequest(input, form.toString(), 'application/x-www-form-urlencoded');
}

/** Which kind of token is passed to `revoke` or `introspect`; only a hint (RFC 7009 §2.1). */
export type TokenTypeHint = 'access_token' | 'refresh_token';

function tokenLookupForm(input: OAuthClientCredentials & { token: string; tokenTypeHint?: TokenTypeHint }): string {
  const form = new URLSearchParams({ token: input.token, client_id: input.clientId, client_secret: input.clientSecret });
  if (input.tokenTypeHint) form.set('token_type_hint', input.tokenTypeHint);
  return form.toString();
}

/**
 * Revokes a token (RFC 7009, `POST {auth_url}/oauth/revoke`): the whole grant it belongs
 * to ends, so the seller's access and refresh tokens for your application stop working.
 * Use it when a seller disconnects your application. Revoking a token that is already
 * revoked, expired or unknown succeeds too (RFC 7009 §2.2).
 *
 * @throws {OAuthError} `invalid_client` for bad credentials.
 * @example
 * ```ts
 * import { revoke } from '@feira/sdk';
 *
 * await revoke({ authUrl, clientId, clientSecret, token: saved.refresh_token, tokenTypeHint: 'refresh_token' });
 * await tokenStore.delete(sellerKey);
 * ```
 */
export async function revoke(input: OAuthClientCredentials & { token: string; tokenTypeHint?: TokenTypeHint }): Promise<void> {
  // RFC 7009 §2.2: revoking twice answers as once, so a lost answer is asked again.
  await authServerRequest(input, '/oauth/revoke', tokenLookupForm(input), 'application/x-www-form-urlencoded', () => true, true);
}

/**
 * Asks whether a token of your application is in force now (RFC 7662,
 * `POST {auth_url}/oauth/introspect`), with its scope, seller (`sub`), stores
 * (`tenants`) and times. Any token that is not in force, or not yours, reads
 * `{ active: false }`.
 *
 * @throws {OAuthError} `invalid_client` for bad credentials.
 * @example
 * ```ts
 * import { introspect } from '@feira/sdk';
 *
 * const info = await introspect({ authUrl, clientId, clientSecret, token: accessToken });
 * if (!info.active) await reconnect(seller);
 * ```
 */
export async function introspect(
  input: OAuthClientCredentials & { token: string; tokenTypeHint?: TokenTypeHint },
): Promise<IntrospectionResponse> {
  return authServerRequest(
    input,
    '/oauth/introspect',
    tokenLookupForm(input),
    'application/x-www-form-urlencoded',
    (_s, parsed) =>
      typeof parsed === 'object' && parsed !== null && typeof (parsed as { active?: unknown }).active === 'boolean'
        ? (parsed as IntrospectionResponse)
        : undefined,
    true,
  );
}
