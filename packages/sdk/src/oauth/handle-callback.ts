import { timingSafeEqual } from 'node:crypto';
import { OAUTH_ERROR_CODES, type OAuthErrorCode, type TokenSet } from '@feira/contract';
import { exchangeCode, type OAuthClientCredentials } from './oauth-client.js';
import { OAuthError } from './oauth-error.js';

/**
 * Why a callback was refused before any code was exchanged. Narrow on `code`:
 * - `iss_missing` / `iss_mismatch`: the answer does not name this identity
 *   provider (RFC 9207 §2.4: a mix-up attack, or the wrong `issuer` configured);
 * - `state_mismatch`: not the answer to the request this session made (a forged
 *   or replayed callback, RFC 6749 §10.12);
 * - `code_missing`: neither a `code` nor an `error`.
 *
 * @example
 * ```ts
 * try {
 *   await handleCallback(request.url, { ...oauth, state: session.state, codeVerifier: session.codeVerifier });
 * } catch (error) {
 *   if (error instanceof OAuthCallbackError) return reply.code(400).send('Start the connection again.');
 *   throw error;
 * }
 * ```
 */
export class OAuthCallbackError extends Error {
  override readonly name = 'OAuthCallbackError';
  readonly code: 'iss_missing' | 'iss_mismatch' | 'state_mismatch' | 'code_missing';

  constructor(code: OAuthCallbackError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * What `handleCallback` checks the callback against, and your application's credentials.
 *
 * @example
 * ```ts
 * const options: HandleCallbackOptions = {
 *   authUrl, clientId, clientSecret,
 *   state: session.state, codeVerifier: session.codeVerifier,
 * };
 * ```
 */
export interface HandleCallbackOptions extends OAuthClientCredentials {
  /** The `state` your authorization URL carried (kept in the seller's session). */
  state: string;
  /** The PKCE verifier of that request (`createPkce().codeVerifier`), when it had a challenge. */
  codeVerifier?: string;
  /**
   * The `redirect_uri` of the authorization request. Default: the callback URL
   * without the parameters the identity provider added (`code`, `state`, `iss`,
   * `error`, `error_description`, `error_uri`).
   */
  redirectUri?: string;
  /** The identity provider's issuer (its metadata's `issuer`). Default: `authUrl` without a trailing slash. */
  issuer?: string;
}

const RESPONSE_PARAMETERS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri'];

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Lengths differ: unequal, and the comparison below needs equal lengths; the length of a state is no secret.
  return left.length === right.length && timingSafeEqual(left, right);
}

const isOAuthErrorCode = (value: string): value is OAuthErrorCode => (OAUTH_ERROR_CODES as readonly string[]).includes(value);

/**
 * Finishes the OAuth redirect: checks the callback, then exchanges its code.
 *
 * In order: `iss` must be this identity provider (RFC 9207 §2.4; the platform
 * sends it on every answer and says so in its metadata,
 * `authorization_response_iss_parameter_supported`); `state` must be the one of
 * this session; an `error` answer (the seller declined: `access_denied`) throws
 * an `OAuthError`; else the `code` is exchanged, with the PKCE verifier, for the
 * seller's tokens. Nothing is sent to the token endpoint unless every check passes.
 *
 * @throws {OAuthCallbackError} `iss_missing`, `iss_mismatch`, `state_mismatch`, `code_missing`.
 * @throws {OAuthError} the callback's `error`, or the token endpoint's refusal (`invalid_grant`).
 * @example
 * ```ts
 * import { handleCallback } from '@feira/sdk';
 *
 * app.get('/callback', async (request) => {
 *   const tokens = await handleCallback(new URL(request.url, 'https://app.example'), {
 *     authUrl, clientId, clientSecret,
 *     state: request.session.state,
 *     codeVerifier: request.session.codeVerifier,
 *   });
 *   await tokenManager.save(request.session.sellerKey, tokens);
 * });
 * ```
 */
export async function handleCallback(callbackUrl: string | URL, options: HandleCallbackOptions): Promise<TokenSet> {
  const url = new URL(callbackUrl);
  const params = url.searchParams;

  const issuer = options.issuer ?? options.authUrl.replace(/\/+$/, '');
  const iss = params.get('iss');
  if (iss === null) {
    throw new OAuthCallbackError('iss_missing', 'The callback carries no `iss`: it did not come from this identity provider.');
  }
  if (iss !== issuer) {
    throw new OAuthCallbackError(
      'iss_mismatch',
      `The callback names issuer ${JSON.stringify(iss)}, not ${JSON.stringify(issuer)}.`,
    );
  }

  const state = params.get('state');
  if (state === null || !sameText(state, options.state)) {
    throw new OAuthCallbackError('state_mismatch', "The callback's `state` is not the one of this session.");
  }

  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description') ?? undefined;
    // The answer was the identity provider's redirect (RFC 6749 §4.1.2.1), hence its status.
    throw new OAuthError(isOAuthErrorCode(error) ? error : 'invalid_response', 302, description ?? error);
  }
  const code = params.get('code');
  if (!code) throw new OAuthCallbackError('code_missing', 'The callback carries neither a `code` nor an `error`.');

  let redirectUri = options.redirectUri;
  if (redirectUri === undefined) {
    const bare = new URL(url);
    for (const name of RESPONSE_PARAMETERS) bare.searchParams.delete(name);
    bare.hash = '';
    redirectUri = bare.toString();
  }
  return exchangeCode({ ...options, code, redirectUri, ...(options.codeVerifier ? { codeVerifier: options.codeVerifier } : {}) });
}
