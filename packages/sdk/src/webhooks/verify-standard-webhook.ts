import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '@feira/contract';
import { type HeadersLike, headerValue } from '../http/header-value.js';
import { DEFAULT_WEBHOOK_TOLERANCE_SECONDS } from './verify-webhook.js';
import { parseWebhookMessage, type WebhookMessage } from './webhook-message.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

/**
 * The Standard Webhooks header names the platform sends on a v1 subscription
 * that asked for them (`standard_webhooks: true` at signup; spec-notes W10).
 *
 * @example
 * ```ts
 * const id = req.headers[STANDARD_WEBHOOK_HEADERS.id]; // the same id on every attempt of a delivery
 * ```
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/**
 * Options of `verifyStandardWebhook`.
 *
 * @example
 * ```ts
 * const options: VerifyStandardWebhookOptions = { rawBody, headers: req.headers, secrets: process.env.FEIRA_WEBHOOK_SECRET! };
 * ```
 */
export interface VerifyStandardWebhookOptions {
  /** The body exactly as received: the signature covers these bytes. */
  rawBody: string | Uint8Array;
  headers: HeadersLike;
  /** The subscription's `whsec_` secret (its base64 part is the key), or several while you rotate yours. */
  secrets: string | readonly string[];
  /** Accepted clock difference, in seconds, either way. Default 300 (the Standard Webhooks tolerance). */
  toleranceSec?: number;
  /** The current time. Default: the system clock. Pass it in tests. */
  now?: Date;
}

/**
 * A verified Standard Webhooks delivery: its id (the same on every retry: drop
 * one you have seen) and its message.
 *
 * @example
 * ```ts
 * const { id, message } = verifyStandardWebhook({ rawBody, headers, secrets });
 * if (await seen(id)) return;
 * ```
 */
export interface StandardWebhook {
  id: string;
  message: WebhookMessage;
}

const UNIX_SECONDS = /^\d{1,12}$/;
const SIGNATURE_BYTES = 32;

function keyOf(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('verifyStandardWebhook: `secrets` must hold at least one non-empty whsec_ secret.');
  }
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
  if (key.length === 0) throw new TypeError('verifyStandardWebhook: a secret decodes to no key bytes (expected whsec_<base64>).');
  return key;
}

/**
 * Verifies a delivery by its Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), as the `standardwebhooks` and
 * `svix` libraries do: `webhook-signature` holds space-separated `v1,<base64>`
 * entries, each HMAC-SHA256 of `<id>.<timestamp>.<raw body>` keyed by the
 * base64-decoded part of the `whsec_` secret. Any entry matching any secret is
 * enough (the platform signs with the new and the old secret while it rotates);
 * every comparison is constant-time. The timestamp must be within `toleranceSec`
 * of `now`. Entries of another scheme (`v1a`, asymmetric) are ignored.
 *
 * The platform sends these headers beside its own `X-Signature-256` on a v1
 * subscription created with `standard_webhooks: true`; `verifyWebhook` checks
 * the platform's own headers.
 *
 * @throws {WebhookVerificationError} `ERR_SIGNATURE_MISSING`, `ERR_SIGNATURE_MISMATCH`,
 *   `ERR_TIMESTAMP_OUT_OF_RANGE`, `ERR_PAYLOAD_INVALID`.
 * @example
 * ```ts
 * import { verifyStandardWebhook } from '@feira/sdk';
 *
 * const { id, message } = verifyStandardWebhook({ rawBody, headers: req.headers, secrets: process.env.FEIRA_WEBHOOK_SECRET! });
 * ```
 */
export function verifyStandardWebhook(options: VerifyStandardWebhookOptions): StandardWebhook {
  const id = headerValue(options.headers, STANDARD_WEBHOOK_HEADERS.id)?.trim();
  const timestamp = headerValue(options.headers, STANDARD_WEBHOOK_HEADERS.timestamp)?.trim();
  const signature = headerValue(options.headers, STANDARD_WEBHOOK_HEADERS.signature);
  if (!id || !timestamp || !signature) {
    throw new WebhookVerificationError(
      'ERR_SIGNATURE_MISSING',
      'A Standard Webhooks header is missing (webhook-id, webhook-timestamp, webhook-signature).',
    );
  }
  const secrets = typeof options.secrets === 'string' ? [options.secrets] : options.secrets;
  if (secrets.length === 0) throw new TypeError('verifyStandardWebhook: `secrets` must hold at least one whsec_ secret.');
  const keys = secrets.map(keyOf);

  const received: Buffer[] = [];
  for (const entry of signature.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma === -1 || entry.slice(0, comma) !== 'v1') continue;
    const text = entry.slice(comma + 1);
    const bytes = Buffer.from(text, 'base64');
    // Only the canonical base64 of 32 bytes counts (Node's decoder skips stray characters). A malformed
    // entry matches nothing, but shows the sender signed: a mismatch, not a missing signature.
    received.push(bytes.length === SIGNATURE_BYTES && bytes.toString('base64') === text ? bytes : Buffer.alloc(0));
  }
  if (received.length === 0) {
    throw new WebhookVerificationError('ERR_SIGNATURE_MISSING', 'webhook-signature holds no `v1,<base64>` entry.');
  }

  const body = options.rawBody;
  let matched = false;
  for (const key of keys) {
    const hmac = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8');
    const expected = typeof body === 'string' ? hmac.update(body, 'utf8').digest() : hmac.update(body).digest();
    // Every entry is compared, with no early exit: timing tells nothing about which matched.
    for (const bytes of received) if (bytes.length === SIGNATURE_BYTES && timingSafeEqual(expected, bytes)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError('ERR_SIGNATURE_MISMATCH', 'No webhook-signature entry matches the expected signature.');
  }

  // Checked after the signature, which covers it: a replay of an authentic delivery fails here.
  const toleranceSec = options.toleranceSec ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!UNIX_SECONDS.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSec) {
    throw new WebhookVerificationError(
      'ERR_TIMESTAMP_OUT_OF_RANGE',
      `webhook-timestamp is not within ${toleranceSec} s of this receiver's clock.`,
    );
  }
  return { id, message: parseWebhookMessage(body) };
}
