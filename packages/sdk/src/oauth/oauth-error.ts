import type { OAuthErrorCode } from '@feira/contract';

/**
 * An error answered by the token endpoint (RFC 6749 §5.2, spec-notes I7),
 * or a token endpoint that did not answer as the spec says. Narrow on `code`:
 * `invalid_grant` means the code or refresh token is used, expired or revoked,
 * so the seller has to connect again.
 *
 * @example
 * ```ts
 * try {
 *   await refresh({ authUrl, clientId, clientSecret, refreshToken });
 * } catch (error) {
 *   if (error instanceof OAuthError && error.code === 'invalid_grant') askTheSellerToReconnect();
 * }
 * ```
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  /** RFC 6749 §5.2 error code, or `invalid_response` when the endpoint's answer was not a token set or an error. */
  readonly code: OAuthErrorCode | 'invalid_response';
  /** The endpoint's `error_description`, if any. */
  readonly description: string | undefined;
  /** HTTP status of the answer. */
  readonly status: number;

  constructor(code: OAuthErrorCode | 'invalid_response', status: number, description?: string) {
    super(description ? `${code}: ${description}` : code);
    this.code = code;
    this.status = status;
    this.description = description;
  }
}
