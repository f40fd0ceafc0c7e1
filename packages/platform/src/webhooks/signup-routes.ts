import { WebhookSignupBody, WebhookSignupResponse } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { refusalDetail, refuseDetails, refuseField } from '../core/refusals.js';
import { requireAccessToken } from '../identity/index.js';
import { outboundPolicyOf } from '../outbound/address-policy.js';
import { signUp } from './subscription-store.js';
import type { WebhookVersion } from './webhook-tables.js';
import { checkWebhookUrl } from './webhook-url.js';

/** W1: topics the token may subscribe to: those whose records its scopes can read (the registry's topic → scope map, D92). */
function allowedTopics(topics: ReadonlyMap<string, string>, scopes: ReadonlySet<string>): string[] {
  return [...topics].filter(([, scope]) => scopes.has(scope)).map(([topic]) => topic);
}

/**
 * The signup body with the topics of the registry in use: the contract's
 * body (whose topics are the spec's) when the app serves the platform's kinds,
 * the same shape naming every registered topic otherwise (D92).
 */
function signupBody(topics: readonly string[]) {
  const topic = Type.Union(topics.map((name) => Type.Literal(name)));
  return Type.Object(
    { ...WebhookSignupBody.properties, topics: Type.Optional(Type.Array(topic, { minItems: 1, uniqueItems: true })) },
    { additionalProperties: false },
  );
}

/** `PUT /v0/onboarding/signup` and `PUT /v1/onboarding/signup` (spec "Webhook subscription"; spec-notes W1). */
export async function signupRoutes(app: FastifyInstance): Promise<void> {
  const registered = app.recordKinds.topics;
  const body = signupBody([...registered.keys()]);
  for (const version of ['v0', 'v1'] as const satisfies WebhookVersion[]) {
    app.put<{ Body: Static<typeof body> }>(
      `/${version}/onboarding/signup`,
      {
        preHandler: requireAccessToken('open:webhook:write'),
        schema: {
          operationId: version === 'v1' ? 'signupWebhooksV1' : 'signupWebhooksV0',
          tags: ['webhooks'],
          summary:
            version === 'v1'
              ? 'Subscribe an HTTPS URL to signed notifications; returns a new whsec_ secret per subscription'
              : 'Subscribe an HTTP or HTTPS URL to unsigned notifications',
          body,
          response: { 200: WebhookSignupResponse },
        },
      },
      async (request) => {
        const seller = request.seller!;
        const { platform } = request.server;
        if (version === 'v0' && request.body.standard_webhooks) {
          // spec-notes W10: v0 deliveries are unsigned, so there is no Standard Webhooks signature to add.
          throw refuseField('WEBHOOK_STANDARD_WEBHOOKS_V1_ONLY', 'standard_webhooks', 'body');
        }
        await checkWebhookUrl(request.body.webhook, version, outboundPolicyOf(platform.config));
        const permitted = allowedTopics(registered, seller.scopes);
        const topics = request.body.topics ?? permitted;
        const refused = topics.filter((topic) => !permitted.includes(topic));
        if (refused.length > 0) {
          throw refuseDetails(
            'WEBHOOK_TOPICS_NOT_READABLE',
            refused.map((topic) =>
              refusalDetail('WEBHOOK_TOPIC_SCOPE_MISSING', 'topics', 'body', { topic, scope: String(registered.get(topic)) }),
            ),
          );
        }
        if (topics.length === 0) throw refuseField('WEBHOOK_NO_TOPIC_ALLOWED', 'topics', 'body');
        const subscriptions = await signUp(
          platform.database.db,
          {
            clientId: seller.clientId,
            tenantId: seller.tenantId,
            topics,
            url: request.body.webhook,
            version,
            standardWebhooks: request.body.standard_webhooks ?? false,
          },
          platform,
        );
        return {
          subscriptions: subscriptions.map((s) => ({
            id: s.id,
            topic: s.topic,
            parameters: { url: s.url, ...(s.secret ? { secret: s.secret } : {}) },
            ...(version === 'v1' ? { standard_webhooks: s.standardWebhooks } : {}),
          })),
        };
      },
    );
  }
}
