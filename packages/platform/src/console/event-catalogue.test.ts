import { TOPIC_NAMES, WEBHOOK_CHANGE_STATUSES, WebhookMessage } from '@feira/contract';
import { Value } from '@sinclair/typebox/value';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_RECORD_KINDS, type RegisteredRecordKind, recordKindRegistry } from '../records/index.js';
import { createTestPlatform } from '../testing.js';
import { eventCatalogue } from './event-catalogue-console.js';

const TENANT = '0190a3c4-0000-7000-8000-00000000cafe';

type Document = {
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }>;
  components: { schemas: Record<string, unknown> };
};

describe('the event catalogue (D153)', () => {
  it('D153: every topic the platform sends is listed, as in the OpenAPI document; each example validates against the contract schema the document publishes and its topic schema', async () => {
    const platform = await createTestPlatform();
    try {
      const doc = (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
      const catalogue = eventCatalogue(platform.app.recordKinds, TENANT);
      const listed = catalogue.map((entry) => entry.topic);
      // Every topic the registry in use delivers, every contract topic and every topic of the document's webhooks section.
      expect(listed).toEqual([...platform.app.recordKinds.topics.keys()]);
      expect([...listed].sort()).toEqual([...TOPIC_NAMES].sort());
      const documented = Object.keys(doc.webhooks).filter((name) => name !== 'shippingQuote');
      expect([...documented].sort()).toEqual([...listed].sort());
      // The document's message schema as published, checked by Fastify's own validator (the one every route's body goes through).
      const checker = Fastify();
      checker.post('/', { schema: { body: doc.components.schemas.WebhookMessage as object } }, async () => 'valid');
      const publishedAccepts = async (body: unknown) =>
        (await checker.inject({ method: 'POST', url: '/', payload: body as object })).statusCode === 200;
      expect(await publishedAccepts({ topic: 'order' }), 'the published schema refuses a message without data').toBe(false);
      for (const entry of catalogue) {
        expect(doc.webhooks[entry.topic]?.post.requestBody.content['application/json'].schema.$ref).toBe(
          '#/components/schemas/WebhookMessage',
        );
        const kind = platform.app.recordKinds.findByTopic(entry.topic) as RegisteredRecordKind;
        expect(entry.scope).toBe(kind.scope);
        expect(entry.examples.map((e) => e.status)).toEqual([...WEBHOOK_CHANGE_STATUSES]);
        for (const { status, message } of entry.examples) {
          expect(Value.Errors(WebhookMessage, message).First(), `${entry.topic} ${status}`).toBeUndefined();
          expect(await publishedAccepts(message), `${entry.topic} ${status} against the document`).toBe(true);
          expect(Value.Check(entry.schema, message), `${entry.topic} ${status}`).toBe(true);
          expect(message).toEqual({
            data: { status, params: { id: message.data.params.id }, resource: `${kind.readPath}/${message.data.params.id}` },
            tenant_id: TENANT,
            topic: entry.topic,
          });
        }
        // A topic's schema is that topic's alone.
        const other = catalogue.find((e) => e.topic !== entry.topic)?.examples[0]?.message;
        expect(Value.Check(entry.schema, other)).toBe(false);
      }
      await checker.close();
    } finally {
      await platform.close();
    }
  });

  it("D153: a kind registered beside the platform's is in the catalogue with its own topic and read path", () => {
    const extra = {
      ...(BUILT_IN_RECORD_KINDS.find('orders') as RegisteredRecordKind),
      table: 'invoices',
      topic: 'invoice',
      readPath: '/seller/v1/invoices',
    } as unknown as RegisteredRecordKind;
    const catalogue = eventCatalogue(recordKindRegistry([...BUILT_IN_RECORD_KINDS.kinds, extra]), TENANT);
    const invoice = catalogue.find((entry) => entry.topic === 'invoice');
    expect(invoice?.readPath).toBe('/seller/v1/invoices/{id}');
    expect(invoice?.examples.every(({ message }) => Value.Check(invoice.schema, message))).toBe(true);
  });
});
