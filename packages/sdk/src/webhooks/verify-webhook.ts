import { WEBHOOK_HEADERS } from '@feira/contract';
import { type HeadersLike, headerValue } from '../http/header-value.js';
import { parseWebhookMessage, type WebhookMessage } from './webhook-message.js';
import { anyDigestMatches, signatureEntries } from './webhook-signature.js';
import { WebhookVerificationError } from './webhook-verification-error.js';

/**
 * spec-notes W8: timestamps within 300 s either way are accepted by default.
 *
 * @example
 * ```ts
 * verifyWebhook({ rawBody, headers, secrets, toleranceSec: DEFAULT_WEBHOOK_TOLERANCE_SECONDS / 2 });
 * ```
 */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Header carrying the `sha256=` entries (spec, Events, Signature).
 *
 * @example
 * ```ts
 * const signature = req.headers[SIGNATURE_HEADER]; // 'sha256=…,sha256=…'
 * ```
 */
export const SIGNATURE_HEADER = WEBHOOK_HEADERS.signature;
/**
 * Header carrying the send time in Unix seconds (spec, Events, Signature).
 *
 * @example
 * ```ts
 * const sentAt = Number(req.headers[TIMESTAMP_HEADER]); // Unix seconds
 * ```
 */
export const TIMESTAMP_HEADER = WEBHOOK_HEADERS.timestamp;

/**
 * Options of `verifyWebhook`.
 *
 * @example
 * ```ts
 * const options: VerifyWebhookOptions = { rawBody, headers: req.headers, secrets: ['whsec_new', 'whsec_old'] };
 * ```
 */
export interface VerifyWebhookOptions {
  /** The body exactly as received: the signature covers these bytes, not a re-serialized object. */
  rawBody: string | Uint8Array;
  headers: HeadersLike;
  /**
   * The subscription's `whsec_` secret, or several (for your own rotation: the
   * message is accepted when any secret matches any signature entry).
   * Ignored for `version: 'v0'`.
   */
  secrets?: string | readonly string[];
  /** Accepted clock difference, in seconds, either way. Default 300 (spec-notes W8). */
  toleranceSec?: number;
  /** The current time. Default: the system clock. Pass it in tests. */
  now?: Date;
  /** `v0` subscriptions are unsigned: the body is only parsed. Default `v1`. */
  version?: 'v0' | 'v1';
}

const UNIX_SECONDS = /^\d{1,12}$/;
const EMPTY = new Uint8Array(0);

// A programming error of the receiver, not of the sender: say so plainly.
const noSecret = () => new TypeError('verifyWebhook: `secrets` must hold at least one non-empty secret for v1 messages.');

/**
 * Verifies a webhook delivery and returns its message, typed by topic.
 *
 * v1 (spec, Events, Signature): the signed string is `X-Timestamp` + `.` + the raw
 * body; the digest is hex HMAC-SHA256 keyed with the secret's UTF-8 bytes
 * (spec-notes W2). `X-Signature-256` may carry several comma-separated
 * `sha256=` entries during the platform's rotation; any match is enough and every
 * comparison is constant-time. The timestamp must be within `toleranceSec` of `now`.
 *
 * @throws {WebhookVerificationError} with `code` `ERR_SIGNATURE_MISSING`,
 *   `ERR_SIGNATURE_MISMATCH`, `ERR_TIMESTAMP_OUT_OF_RANGE` or `ERR_PAYLOAD_INVALID`.
 * @example
 * ```ts
 * import { verifyWebhook } from '@feira/sdk';
 *
 * const message = verifyWebhook({ rawBody, headers: req.headers, secrets: process.env.FEIRA_WEBHOOK_SECRET! });
 * if (message.topic === 'sac_ticket') console.log('ticket changed:', message.data.resource);
 * ```
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookMessage {
  if (options.version === 'v0') return parseWebhookMessage(options.rawBody);

  const signatureHeader = headerValue(options.headers, SIGNATURE_HEADER);
  const timestamp = headerValue(options.headers, TIMESTAMP_HEADER)?.trim();
  if (!signatureHeader) throw new WebhookVerificationError('ERR_SIGNATURE_MISSING', 'The X-Signature-256 header is missing.');
  if (!timestamp) throw new WebhookVerificationError('ERR_SIGNATURE_MISSING', 'The X-Timestamp header is missing.');
  const secrets = typeof options.secrets === 'string' ? [options.secrets] : (options.secrets ?? []);
  if (secrets.length === 0) throw noSecret();
  for (const secret of secrets) if (typeof secret !== 'string' || secret.length === 0) throw noSecret();

  const digests = signatureEntries(signatureHeader);
  if (digests.length === 0) {
    throw new WebhookVerificationError('ERR_SIGNATURE_MISSING', 'X-Signature-256 holds no `sha256=<hex digest>` entry.');
  }

  // Spec Events rule 3: any entry may match any secret; every pair is compared
  // in constant time, with no early exit.
  const body = options.rawBody ?? EMPTY;
  let matched = false;
  for (const secret of secrets) {
    if (anyDigestMatches(digests, secret, timestamp, body)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError('ERR_SIGNATURE_MISMATCH', 'No X-Signature-256 entry matches the expected signature.');
  }

  // The signature covers the timestamp, so it is checked after the signature: a
  // replay of an authentic message fails here.
  const toleranceSec = options.toleranceSec ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!UNIX_SECONDS.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSec) {
    throw new WebhookVerificationError(
      'ERR_TIMESTAMP_OUT_OF_RANGE',
      `X-Timestamp is not within ${toleranceSec} s of this receiver's clock.`,
    );
  }
  return parseWebhookMessage(body);
}
