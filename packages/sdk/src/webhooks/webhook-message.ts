import { isTopic, type Topic, type WebhookMessage as WireWebhookMessage } from '@feira/contract';
import { WebhookVerificationError } from './webhook-verification-error.js';

/**
 * The kind of change a webhook signals (spec, Events).
 *
 * @example
 * ```ts
 * const status: WebhookStatus = 'DELETION'; // drop your copy of the record
 * ```
 */
export type WebhookStatus = WireWebhookMessage['data']['status'];

const STATUSES: ReadonlySet<string> = new Set<WebhookStatus>(['CREATION', 'UPDATE', 'DELETION']);

/**
 * A webhook message of one topic (the contract's `WebhookMessage` with `topic`
 * narrowed). It only signals a change; read the record at
 * `data.resource` through the API (spec, Events rule 1).
 *
 * @example
 * ```ts
 * const message: WebhookMessageOf<'sac_ticket'> = {
 *   data: { status: 'CREATION', params: { id: 't1' }, resource: '/seller/v0/tickets/t1' },
 *   tenant_id: '0f8fad5b-d9cb-469f-a165-70867728950e',
 *   topic: 'sac_ticket',
 * };
 * ```
 */
export type WebhookMessageOf<T extends Topic> = Omit<WireWebhookMessage, 'topic'> & { topic: T };

/**
 * A webhook message, discriminated by `topic`: a `switch (message.topic)` narrows it.
 *
 * @example
 * ```ts
 * function route(message: WebhookMessage) {
 *   switch (message.topic) {
 *     case 'sac_ticket': return `ticket ${message.data.params.id}`;
 *     case 'order': return `order ${message.data.params.id}`;
 *     default: return 'other';
 *   }
 * }
 * ```
 */
export type WebhookMessage = { [T in Topic]: WebhookMessageOf<T> }[Topic];

// Decodes through a view of the same memory: `Buffer.from(uint8Array)` would copy
// the whole body first, one allocation per message (the adapters pass Buffers).
const utf8Text = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

// Module-level rather than a closure per call: run through tsx (as the bench does),
// each closure is also renamed on creation, a measurable share of a 1 KiB message.
const invalid = (why: string) =>
  new WebhookVerificationError('ERR_PAYLOAD_INVALID', `The webhook body is not a message: ${why}.`);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses a webhook body and checks it has the spec's shape (Resources, Webhook
 * message). Use it directly only for v0 messages, which carry no signature;
 * `verifyWebhook` calls it after checking a v1 signature.
 *
 * @throws {WebhookVerificationError} `ERR_PAYLOAD_INVALID` when the body is not JSON or not a message.
 * @example
 * ```ts
 * const message = parseWebhookMessage('{"data":{"status":"UPDATE","params":{"id":"o1"},"resource":"/v1/orders/o1"},"tenant_id":"t","topic":"order"}');
 * message.data.resource; // '/v1/orders/o1'
 * ```
 */
export function parseWebhookMessage(rawBody: string | Uint8Array): WebhookMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : utf8Text(rawBody));
  } catch {
    throw new WebhookVerificationError('ERR_PAYLOAD_INVALID', 'The webhook body is not valid JSON.');
  }
  if (!isObject(parsed)) throw invalid('not an object');
  const { data, tenant_id, topic } = parsed;
  if (typeof topic !== 'string' || !isTopic(topic)) throw invalid('unknown or missing `topic`');
  if (typeof tenant_id !== 'string' || tenant_id.length === 0) throw invalid('missing `tenant_id`');
  if (!isObject(data)) throw invalid('missing `data`');
  if (typeof data.status !== 'string' || !STATUSES.has(data.status))
    throw invalid('`data.status` is not CREATION, UPDATE or DELETION');
  if (typeof data.resource !== 'string' || !data.resource.startsWith('/')) throw invalid('`data.resource` is not a path');
  if (!isObject(data.params) || typeof data.params.id !== 'string') throw invalid('`data.params.id` is missing');
  return parsed as unknown as WebhookMessage;
}
