import { WEBHOOK_CHANGE_STATUSES, type WebhookChangeStatus, webhookMessage, webhookTopicMessage } from '@feira/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreParams } from '../http/route-params.js';
import { type RecordChange, type RecordKindRegistry, type RegisteredRecordKind, recordPath } from '../records/index.js';
import type { ConsoleKit } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { type CatalogueTopic, eventCatalogueView } from './event-catalogue-views.js';

/**
 * The event catalogue (D153): every event a subscription can receive, one
 * topic per kind of record the platform serves (the registry in use, so a
 * kind registered beside the platform's is listed too) and one event type per
 * change (`data.status`). Nothing here is written by hand: a topic's schema is
 * the contract's message with its topic fixed (`webhookTopicMessage`), and its
 * examples are built by the function the outbox serializes every real message
 * with (`webhookMessage`), from the same change a test event appends, so the
 * test event's body is the catalogue's example byte for byte.
 */

/** The record id of every example and test event (D66): no record has it, so a receiver that reads it back gets a 404. */
const EXAMPLE_RECORD_ID = '00000000-0000-7000-8000-000000000000';

/** The change a catalogue example and a test event announce: a record no store has, of the kind's topic. */
export function exampleChange(
  kind: Pick<RegisteredRecordKind, 'topic' | 'readPath'>,
  status: WebhookChangeStatus,
  tenantId: string,
): RecordChange {
  return { tenantId, topic: kind.topic, status, recordId: EXAMPLE_RECORD_ID, resource: recordPath(kind, EXAMPLE_RECORD_ID) };
}

/** The catalogue of the kinds registered, in registry order, its examples naming `tenantId`. */
export function eventCatalogue(registry: Pick<RecordKindRegistry, 'kinds'>, tenantId: string): CatalogueTopic[] {
  return registry.kinds.map((kind) => ({
    topic: kind.topic,
    scope: kind.scope,
    readPath: recordPath(kind, '{id}'),
    schema: webhookTopicMessage(kind.topic),
    examples: WEBHOOK_CHANGE_STATUSES.map((status) => ({
      status,
      message: webhookMessage(exampleChange(kind, status, tenantId)),
    })),
  }));
}

/** Whether a posted value names an event type (a change status). */
export function isChangeStatus(value: unknown): value is WebhookChangeStatus {
  return typeof value === 'string' && (WEBHOOK_CHANGE_STATUSES as readonly string[]).includes(value);
}

/** The catalogue's page of one store: its examples carry the store's own id. */
function catalogueRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  app.get<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/events',
    { schema: { hide: true, params: StoreParams } },
    (request, reply) => cataloguePage(app, kit, request, reply),
  );
  return Promise.resolve();
}

async function cataloguePage(
  app: FastifyInstance,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: { tenantId: string } }>,
  reply: FastifyReply,
) {
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return reply;
  const t = kit.translator(request);
  return kit.page(request, reply, t, found.seller, {
    title: t.text('catalogue.title'),
    body: eventCatalogueView(t, { store: found.store, topics: eventCatalogue(app.recordKinds, found.store.id) }),
  });
}

export const eventCatalogueSection: ConsoleSection = { name: 'event-catalogue', routes: catalogueRoutes };
