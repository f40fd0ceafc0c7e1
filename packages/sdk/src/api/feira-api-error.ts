import type { ErrorDetail, RateLimitState } from '@feira/contract';

/**
 * An error answer of a platform API, carrying the platform error body
 * (`message`, `slug`, `details[]`; spec-notes L9). Narrow on `slug`:
 * `UNAUTHORIZED` (401), `FORBIDDEN` (403: missing scope or tenant), `NOT_FOUND`,
 * `UNPROCESSABLE_ENTITY` (422: `details[]` names each field), `RATE_LIMITED`
 * (429: the app is over its API rate limit for the store, spec-notes I20;
 * `retryAfterMs` says when to try again).
 *
 * @example
 * ```ts
 * try {
 *   await api.get('/v1/orders/nope');
 * } catch (error) {
 *   if (error instanceof FeiraApiError && error.slug === 'NOT_FOUND') return null;
 *   throw error;
 * }
 * ```
 */
export class FeiraApiError extends Error {
  override readonly name = 'FeiraApiError';
  readonly status: number;
  /** The platform's slug, or `INVALID_RESPONSE` when the answer was not the platform error shape. */
  readonly slug: string;
  readonly details: ErrorDetail[];
  /** The platform's request id: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** The answer's `Retry-After` in milliseconds (a 429 or 503 the client did not wait out), if it had one. */
  readonly retryAfterMs: number | undefined;
  /** The answer's `RateLimit` (spec-notes I20): what the app had left for the store, and when it is whole again. */
  readonly rateLimit: RateLimitState | undefined;

  constructor(status: number, body: unknown, requestIdHeader: string | null, retryAfterMs?: number, rateLimit?: RateLimitState) {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const slug = typeof b.slug === 'string' ? b.slug : 'INVALID_RESPONSE';
    const message = typeof b.message === 'string' ? b.message : `HTTP ${status}`;
    const details = Array.isArray(b.details) ? (b.details as ErrorDetail[]) : [];
    const detailText = details.map((d) => `${d.field}: ${d.message}`).join('; ');
    super(`${status} ${slug}: ${message}${detailText ? ` (${detailText})` : ''}`);
    this.status = status;
    this.slug = slug;
    this.details = details;
    this.requestId = typeof b.request_id === 'string' ? b.request_id : (requestIdHeader ?? undefined);
    this.retryAfterMs = retryAfterMs;
    this.rateLimit = rateLimit;
  }
}
