import { OAuthErrorBody, type OAuthErrorCode } from '@feira/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/database-errors.js';

/**
 * The one error class of the token endpoint (RFC 6749 §5.2, spec-notes I7).
 * `code` narrows in a switch. The description is shown to the client: never put
 * a token, code, secret or password in it.
 */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  /**
   * Set on `temporarily_unavailable`: answered with this Retry-After, as 429 from a throttle
   * or 503 when `unavailable` (the database is unreachable).
   */
  readonly retryAfterSeconds: number | undefined;
  readonly #unavailable: boolean;
  constructor(code: OAuthErrorCode, description: string, options: { retryAfterSeconds?: number; unavailable?: boolean } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.#unavailable = options.unavailable ?? false;
  }

  get statusCode(): number {
    if (this.#unavailable) return 503;
    if (this.retryAfterSeconds !== undefined) return 429;
    // RFC 6749 §5.2: invalid_client is 401 when the client tried to authenticate; the rest are 400.
    return this.code === 'invalid_client' ? 401 : this.code === 'server_error' ? 500 : 400;
  }

  toBody(): OAuthErrorBody {
    return { error: this.code, error_description: this.message };
  }
}

/**
 * The 429 of every endpoint that authenticates a client (client-authentication.ts
 * reserves an attempt per client_id and address first), as the OpenAPI document
 * declares it: the RFC 6749 §5.2 body and the Retry-After header.
 */
export const throttledResponse: Record<string, unknown> = {
  ...OAuthErrorBody,
  description:
    'temporarily_unavailable: too many client authentication attempts for this client_id or from this address; retry after Retry-After seconds',
  headers: {
    'Retry-After': {
      type: 'integer',
      minimum: 1,
      description: 'Seconds to wait before the next attempt (RFC 9110 §10.2.3)',
    },
  },
};

/** Fastify's own errors (body parsing, content type, size) in OAuth words. */
function fromFastifyError(error: FastifyError): OAuthError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new OAuthError('invalid_request', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new OAuthError(
        'invalid_request',
        'Send the parameters as application/x-www-form-urlencoded or application/json (spec-notes I2)',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError('invalid_request', 'The request body is too large');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new OAuthError('invalid_request', 'The request is malformed');
  return null;
}

/**
 * Error handler of the token endpoint's encapsulated context: every error is an
 * RFC 6749 §5.2 body with `Cache-Control: no-store`; `invalid_client` carries
 * `WWW-Authenticate: Basic` (RFC 6749 §5.2). Unknown errors are logged and
 * become `server_error` without internals.
 */
export function oauthErrorHandler(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let oauthError = error instanceof OAuthError ? error : fromFastifyError(error as FastifyError);
  if (!oauthError && isDatabaseUnavailable(error)) {
    // RFC 6749 §5.2 has no such code for the token endpoint, but §4.1.2.1's temporarily_unavailable is the
    // word OAuth clients know for "retry later"; 503 + Retry-After says the same in HTTP.
    const { code, message } = error as { code?: unknown; message?: unknown };
    request.log.warn({ err: { code, message: String(message) } }, 'database unavailable');
    oauthError = new OAuthError('temporarily_unavailable', 'The server is temporarily unavailable; retry later', {
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
      unavailable: true,
    });
  }
  if (!oauthError) {
    request.log.error({ err: error }, 'token endpoint failed');
    oauthError = new OAuthError('server_error', 'The server could not complete the request');
  }
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (oauthError.retryAfterSeconds !== undefined) reply.header('retry-after', String(oauthError.retryAfterSeconds));
  if (oauthError.code === 'invalid_client') reply.header('www-authenticate', 'Basic realm="feira", charset="UTF-8"');
  return reply.code(oauthError.statusCode).send(oauthError.toBody());
}
