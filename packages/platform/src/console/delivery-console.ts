import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/login-session.js';
import { redeliverDelivery } from '../webhooks/redelivery.js';
import { visibleDelivery, type WebhookViewer } from '../webhooks/seller-webhook-routes.js';
import { type ConsoleKit, formBody, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { type AttemptView, attemptsRegion, deliveryView } from './console-views.js';

const DeliveryParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

/** One delivery of a store: its request, every attempt (live) and "Resend now" (W4). */
async function deliveryRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const { db } = app.platform.database;

  app.get<{ Params: { tenantId: string; id: string }; Querystring: { resent?: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const delivery = await visibleDelivery(db, found.viewer, request.params.id);
      if (!delivery) return kit.notFoundPage(request, reply, found.seller);
      const t = requestTranslator(request);
      return kit.page(request, reply, t, found.seller, {
        title: t.text('delivery.title', { id: delivery.id }),
        body: deliveryView(t, {
          store: found.store,
          delivery: {
            id: delivery.id,
            topic: delivery.topic,
            status: delivery.status,
            attempts: delivery.attempts,
            lastStatusCode: delivery.last_status_code,
            createdAt: delivery.created_at,
            nextAttemptAt: delivery.next_attempt_at,
          },
          attempts: delivery.attempt_log as AttemptView[],
          requestBody: delivery.request_body,
          csrf: kit.csrfToken(request, reply),
          resent: request.query.resent === '1',
        }),
      });
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id/resend',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const path = storePath(found.store.id, `/webhooks/deliveries/${encodeURIComponent(request.params.id)}`);
      if (!csrfTokenValid(request, formBody(request).csrf)) return kit.seeOther(reply, path);
      if (!(await visibleDelivery(db, found.viewer, request.params.id))) return kit.notFoundPage(request, reply, found.seller);
      await redeliverDelivery(db, request.params.id, request.server.platform.clock.now());
      return kit.seeOther(reply, `${path}?resent=1`);
    },
  );

  // Server-sent events: the attempts region, re-rendered whenever a new attempt or state is recorded.
  app.get<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id/live',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const seller = await kit.signedIn(request);
      const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
      if (!seller || !store)
        return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      const viewer: WebhookViewer = { tenantIds: [store.id], clientId: null, bySession: true };
      const t = requestTranslator(request);
      const first = await visibleDelivery(db, viewer, request.params.id);
      if (!first) return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      kit.liveRegion(request, reply, {
        event: 'attempts',
        first,
        read: () => visibleDelivery(db, viewer, request.params.id),
        fingerprint: (d) => `${d.status}|${d.attempt_log.length}|${d.next_attempt_at}`,
        render: (d) => ({ html: attemptsRegion(t, d.attempt_log as AttemptView[], d.next_attempt_at), status: d.status }),
      });
    },
  );
}

export const deliverySection: ConsoleSection = { name: 'delivery', routes: deliveryRoutes };
