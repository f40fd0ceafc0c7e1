/**
 * Why a webhook was refused. Narrow on `code` in a `switch`; the message never
 * contains a secret or a signature.
 *
 * @example
 * ```ts
 * const code: WebhookErrorCode = 'ERR_SIGNATURE_MISMATCH';
 * ```
 */
export type WebhookErrorCode =
  | 'ERR_SIGNATURE_MISSING'
  | 'ERR_SIGNATURE_MISMATCH'
  | 'ERR_TIMESTAMP_OUT_OF_RANGE'
  | 'ERR_PAYLOAD_INVALID';

/**
 * Thrown by `verifyWebhook` and `parseWebhookMessage`.
 *
 * @example
 * ```ts
 * try {
 *   verifyWebhook({ rawBody, headers, secrets: process.env.FEIRA_WEBHOOK_SECRET! });
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError && error.code === 'ERR_TIMESTAMP_OUT_OF_RANGE') {
 *     // the clock of this machine may be off, or the message is a replay
 *   }
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly code: WebhookErrorCode;

  constructor(code: WebhookErrorCode, message: string) {
    super(message);
    this.code = code;
  }

  /** The HTTP status a receiver should answer with: 400 for a bad body, 401 for a bad or missing signature. */
  get status(): 400 | 401 {
    return this.code === 'ERR_PAYLOAD_INVALID' ? 400 : 401;
  }
}
