import { QuoteErrorBody, QuoteRequest, QuoteResponse, TOPIC_NAMES, TOPICS, WebhookMessage } from '@feira/contract';

/**
 * The requests Feira sends to the seller's own servers, as the OpenAPI 3.1
 * `webhooks` section: one entry per webhook topic (spec-notes W3, W7) and the
 * shipping quote call (spec-notes Q1–Q4). Generators and viewers read these as
 * "operations your server implements".
 */

const HOW_TO_VERIFY = [
  'Verify before trusting the body (v1 subscriptions):',
  '1. Read the raw body bytes and the `X-Timestamp` header; refuse a timestamp more than 300 s from your clock (replay window, spec-notes W8).',
  '2. Compute lowercase hex HMAC-SHA256 of `<X-Timestamp>.<raw body>`, keyed with the whole `whsec_…` secret string as UTF-8 bytes (spec-notes W2).',
  '3. Compare it in constant time with each `sha256=<hex>` value of `X-Signature-256` (two during a secret rotation); accept if one matches.',
  '4. De-duplicate by `X-Webhook-Id` (the same on every retry) and answer 2xx within 10 s; then read `data.resource` for the record (spec-notes W4, W5).',
  'The SDK does all of this: `verifyWebhook` in `@feira/sdk`.',
].join('\n');

const signatureHeaders = [
  {
    name: 'X-Webhook-Id',
    in: 'header',
    required: true,
    description: 'Delivery id, the same on every retry: de-duplicate with it (spec-notes W3, W5)',
    schema: { type: 'string' },
  },
  {
    name: 'X-Timestamp',
    in: 'header',
    required: false,
    description: 'v1 only: Unix time (seconds) of this attempt; each attempt is signed afresh',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'X-Signature-256',
    in: 'header',
    required: false,
    description:
      'v1 only: `sha256=<lowercase hex HMAC-SHA256 of "<X-Timestamp>.<raw body>">`, comma-separated during a secret rotation',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}(,sha256=[0-9a-f]{64})*$' },
  },
  {
    name: 'webhook-id',
    in: 'header',
    required: false,
    description:
      'Standard Webhooks (v1 subscriptions signed up with `standard_webhooks: true`, spec-notes W10): the same value as X-Webhook-Id',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: false,
    description: 'Standard Webhooks (spec-notes W10): the same value as X-Timestamp',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: false,
    description:
      'Standard Webhooks (spec-notes W10): `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" keyed by the base64-decoded secret after whsec_>`, space-separated during a rotation; the `standardwebhooks` and `svix` libraries verify it as is',
    schema: { type: 'string' },
  },
];

function withoutId(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** Component schemas the webhooks section refers to. */
export const webhookComponentSchemas = {
  WebhookMessage: withoutId(WebhookMessage),
  QuoteRequest: withoutId(QuoteRequest),
  QuoteResponse: withoutId(QuoteResponse),
  QuoteErrorBody: withoutId(QuoteErrorBody),
};

const delivered = { description: 'Any 2xx within 10 s is success; anything else is retried (spec-notes W4)' };

/** The `webhooks` section: one entry per topic, then the quote call. */
export const openapiWebhooks = {
  ...Object.fromEntries(
    TOPIC_NAMES.map((topic) => [
      topic,
      {
        post: {
          operationId: `${topic.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())}Webhook`,
          tags: ['webhooks'],
          summary: `A ${topic} record changed (readable with ${TOPICS[topic].scope})`,
          description: `Sent to the URL subscribed with \`PUT /v1/onboarding/signup\` for the topic \`${topic}\`.\n\n${HOW_TO_VERIFY}`,
          security: [],
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookMessage' } } },
          },
          responses: { '2XX': delivered, '4XX': { description: 'Retried like any failure (spec-notes W4)' } },
        },
      },
    ]),
  ),
  shippingQuote: {
    post: {
      operationId: 'shippingQuote',
      tags: ['shipping'],
      summary: "The seller's shipping-quote endpoint, called by Feira",
      description:
        'Feira POSTs this to the `seller_api` URL set for the store (spec-notes Q1) for a product-page quote and again at checkout. ' +
        'Answer within 1.0 s (no retry; spec-notes Q3) with 200 and the packages, or 400 with an error code. ' +
        'An answer that breaks a rule is `invalid_response` and the shopper sees shipping unavailable (spec-notes Q4). ' +
        '`feira quote-check <url>` tests an endpoint against the same rules.',
      security: [],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/QuoteRequest' } } },
      },
      responses: {
        '200': {
          description: 'Delivery options per package',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/QuoteResponse' } } },
        },
        '400': {
          description: '`invalid_zipcode`, `delivery_not_available` or `out_of_stock` (with the items)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/QuoteErrorBody' } } },
        },
      },
    },
  },
};
