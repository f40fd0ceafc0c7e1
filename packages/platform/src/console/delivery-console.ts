import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { refuse } from '../core/refusals.js';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { redeliverDelivery, visibleDelivery, type WebhookViewer } from '../webhooks/index.js';
import { type ConsoleKit, formBody, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { type AttemptView, attemptsRegion, deliveryView, noticeOf } from './webhook-views.js';
import { deliveryRowOf, endpointsOf } from './webhooks-console.js';

const DeliveryParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

/**
 * One delivery of a store: its ids (copyable), the app, subscription and URL
 * it went to, its request, every attempt numbered in order with the summary
 * kept current live, and "Resend now" (W4).
 */
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
      const endpoints = new Map((await endpointsOf(db, found.store.id)).map((e) => [e.id, e]));
      return kit.page(request, reply, t, found.seller, {
        title: t.text('delivery.title', { id: delivery.id }),
        scripts: ['/console/assets/webhooks.js'],
        body: deliveryView(t, {
          store: found.store,
          delivery: deliveryRowOf(delivery, endpoints),
          attempts: delivery.attempt_log as AttemptView[],
          requestBody: delivery.request_body,
          csrf: kit.csrfToken(request, reply),
          notice: request.query.resent === '1' ? noticeOf(t, null, t.html('delivery.resent')) : '',
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
      if (!csrfTokenValid(request, formBody(request).csrf)) return kit.seeOther(reply, `${path}?done=expired`);
      if (!(await visibleDelivery(db, found.viewer, request.params.id))) return kit.notFoundPage(request, reply, found.seller);
      await redeliverDelivery(db, request.params.id, request.server.platform.clock.now());
      return kit.seeOther(reply, `${path}?resent=1`);
    },
  );

  // Server-sent events: the summary and attempts, re-rendered whenever a new attempt or state is recorded.
  app.get<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id/live',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const seller = await kit.signedIn(request);
      const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
      if (!seller || !store) throw refuse('CONSOLE_LIVE_NOT_FOUND');
      const viewer: WebhookViewer = { tenantIds: [store.id], clientId: null, bySession: true };
      const t = requestTranslator(request);
      const first = await visibleDelivery(db, viewer, request.params.id);
      if (!first) throw refuse('CONSOLE_LIVE_NOT_FOUND');
      kit.liveRegion(request, reply, {
        event: 'attempts',
        first,
        read: () => visibleDelivery(db, viewer, request.params.id),
        fingerprint: (d) => `${d.status}|${d.attempt_log.length}|${d.next_attempt_at}`,
        render: (d) => ({
          html: attemptsRegion(
            t,
            { topic: d.topic, status: d.status, nextAttemptAt: d.next_attempt_at, attempts: Number(d.attempts) },
            d.attempt_log as AttemptView[],
          ),
          status: d.status,
        }),
      });
    },
  );
}

export const deliverySection: ConsoleSection = { name: 'delivery', routes: deliveryRoutes };
