import { createHmac } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { TOPIC_NAMES } from './scopes.js';

/** The changes a message announces, its `data.status`: with the topic, a message's event type (D153). */
export const WEBHOOK_CHANGE_STATUSES = ['CREATION', 'UPDATE', 'DELETION'] as const;
export type WebhookChangeStatus = (typeof WEBHOOK_CHANGE_STATUSES)[number];

/** Spec "Webhook message": signals a change only; the subscriber reads `data.resource` for the details. */
export const WebhookMessage = Type.Object({
  data: Type.Object({
    status: Type.Union(WEBHOOK_CHANGE_STATUSES.map((status) => Type.Literal(status))),
    params: Type.Object({ id: Type.String() }),
    resource: Type.String({ description: 'URI path of the changed record, usable to read its current data' }),
  }),
  tenant_id: Type.String({ description: 'The tenant (store) the event concerns' }),
  topic: Type.String({ description: '`sac_ticket`, `order`, `product` or `financial_transaction` (spec-notes W7)' }),
});
export type WebhookMessage = Static<typeof WebhookMessage>;

/**
 * The message of one topic: {@link WebhookMessage} with its `topic` fixed, the
 * schema the event catalogue shows for that topic (D153). Built from the
 * message's own properties, so the two cannot say different things.
 */
export function webhookTopicMessage(topic: string) {
  return Type.Object({
    ...WebhookMessage.properties,
    topic: Type.Literal(topic, { description: 'The topic this message is about (spec-notes W7)' }),
  });
}

/**
 * The message of a record change, in the spec's shape and key order: what the
 * outbox serializes once and delivers byte for byte, and what the event
 * catalogue shows as a topic's example (D153).
 */
export function webhookMessage(change: {
  status: WebhookChangeStatus;
  recordId: string;
  resource: string;
  tenantId: string;
  topic: string;
}): WebhookMessage {
  return {
    data: { status: change.status, params: { id: change.recordId }, resource: change.resource },
    tenant_id: change.tenantId,
    topic: change.topic,
  };
}

/** What a seller may write about a subscription (D154): one line of at most 200 characters, no control characters. */
export const WebhookSubscriptionDescription = Type.String({
  maxLength: 200,
  pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
  description: "The seller's own note about the endpoint: at most 200 characters on one line",
});

export const WebhookTopic = Type.Union(TOPIC_NAMES.map((topic) => Type.Literal(topic)));

/** spec-notes W1: `PUT /v{0,1}/onboarding/signup` body. Topics default to all the token's scopes allow. */
export const WebhookSignupBody = Type.Object(
  {
    webhook: Type.String({ minLength: 1, maxLength: 2048, description: 'Subscriber URL (HTTPS required on v1)' }),
    topics: Type.Optional(Type.Array(WebhookTopic, { minItems: 1, uniqueItems: true })),
    standard_webhooks: Type.Optional(
      Type.Boolean({
        description:
          'v1 only: also send the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`) beside X-Signature-256, so the `standardwebhooks` and `svix` libraries verify deliveries as they are (spec-notes W10). Each signup sets it anew; default false.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhookSignupBody = Static<typeof WebhookSignupBody>;

/** Spec "Webhook subscription": `secret` only in the v1 signup response, never again. */
export const WebhookSubscription = Type.Object({
  id: Type.String(),
  topic: Type.String(),
  parameters: Type.Object({
    url: Type.String(),
    secret: Type.Optional(Type.String({ description: 'v1 only: `whsec_` + 32 random bytes in base64 (spec-notes W2)' })),
  }),
  standard_webhooks: Type.Optional(
    Type.Boolean({ description: 'v1: whether deliveries carry the Standard Webhooks headers too' }),
  ),
});
export type WebhookSubscription = Static<typeof WebhookSubscription>;

export const WebhookSignupResponse = Type.Object({ subscriptions: Type.Array(WebhookSubscription) });
export type WebhookSignupResponse = Static<typeof WebhookSignupResponse>;

/** Spec "Webhook URL rejected (v1)": the exact 422 body. */
export const WebhookUrlRejectedBody = Type.Object({
  message: Type.Literal('Unprocessable entity'),
  slug: Type.Literal('UNPROCESSABLE_ENTITY'),
  details: Type.Array(
    Type.Object({
      field: Type.Literal('webhook'),
      location: Type.Literal('body'),
      message: Type.String(),
      slug: Type.Literal('INVALID_PARAMETER_VALUE'),
    }),
  ),
  request_id: Type.Optional(Type.String()),
});
export type WebhookUrlRejectedBody = Static<typeof WebhookUrlRejectedBody>;

/** Header names of a delivery (spec-notes W3; spec "Signature (v1 only)"). Node lower-cases them. */
export const WEBHOOK_HEADERS = {
  signature: 'x-signature-256',
  timestamp: 'x-timestamp',
  id: 'x-webhook-id',
} as const;

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * Spec "Signature (v1 only)": lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`,
 * keyed with the whole secret string as UTF-8 (spec-notes W2).
 */
export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  // A string body is hashed as UTF-8 directly: copying it into a Buffer first
  // costs a full allocation per message (measurable at 64 KiB).
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  return hmac.digest('hex');
}

/**
 * The Standard Webhooks signature (spec-notes W10): HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` keyed by the base64-decoded part of the secret
 * after `whsec_`, in base64: what `webhook-signature: v1,<this>` carries.
 */
export function signStandardWebhook(
  secret: string,
  id: string,
  timestamp: number | string,
  rawBody: string | Uint8Array,
): string {
  const key = Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
  const hmac = createHmac('sha256', key);
  hmac.update(`${id}.${timestamp}.`, 'utf8');
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  return hmac.digest('base64');
}

/** `sha256=<new>,sha256=<old>`: newest secret first (spec "Signature" rule 3). */
export function formatSignatureHeader(digests: readonly string[]): string {
  return digests.map((digest) => `sha256=${digest}`).join(',');
}
