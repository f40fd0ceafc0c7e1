import { type HeadersLike, headerValue } from '../http/header-value.js';
import { type VerifyWebhookOptions, verifyWebhook } from './verify-webhook.js';
import type { WebhookMessage } from './webhook-message.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

/**
 * Options shared by the webhook adapters (node:http, Express, Fastify).
 *
 * @example
 * ```ts
 * const options: WebhookReceiverOptions = {
 *   secrets: process.env.FEIRA_WEBHOOK_SECRET!,
 *   onMessage: async (message) => console.log(message.topic, message.data.resource),
 * };
 * ```
 */
export interface WebhookReceiverOptions extends Pick<VerifyWebhookOptions, 'toleranceSec' | 'version'> {
  /**
   * The subscription secrets (see `verifyWebhook`), or a function returning the
   * current ones, read at every delivery (for secrets kept in a database).
   */
  secrets?: VerifyWebhookOptions['secrets'] | (() => readonly string[] | Promise<readonly string[]>);
  /**
   * Called once per authentic message. Resolve to acknowledge (2xx); throw to have
   * the platform retry later (spec-notes W4). `webhookId` is the `X-Webhook-Id`
   * header, the same on every retry: use it to drop duplicates (W3, W5).
   */
  onMessage(message: WebhookMessage, delivery: { webhookId: string | undefined }): unknown;
  /** The current time; default the system clock. */
  now?: () => Date;
  /** Largest accepted body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

/** What an adapter sends back. */
export interface ReceiverResponse {
  status: number;
  body: Record<string, unknown>;
}

/** Verifies, dispatches to `onMessage`, and maps the outcome to an HTTP answer. */
export async function receiveWebhook(
  rawBody: string | Uint8Array,
  headers: HeadersLike,
  options: WebhookReceiverOptions,
): Promise<ReceiverResponse> {
  let message: WebhookMessage;
  const secrets = typeof options.secrets === 'function' ? await options.secrets() : options.secrets;
  try {
    message = verifyWebhook({
      rawBody,
      headers,
      secrets,
      toleranceSec: options.toleranceSec,
      version: options.version,
      now: options.now?.(),
    });
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      return { status: error.status, body: { error: error.code, message: error.message } };
    }
    throw error;
  }
  try {
    await options.onMessage(message, { webhookId: headerValue(headers, 'x-webhook-id') });
  } catch {
    // No internals in the answer; the platform will retry (spec-notes W4).
    return { status: 500, body: { error: 'ERR_HANDLER_FAILED', message: 'The receiver failed to process the message.' } };
  }
  return { status: 200, body: { received: true } };
}
