import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientNamesById } from '../accounts/client-repository.js';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/login-session.js';
import { newestStoreDeliveries } from '../webhooks/delivery-store.js';
import { redeliverFailedSince } from '../webhooks/redelivery.js';
import { sellerWebhookRoutes } from '../webhooks/seller-webhook-routes.js';
import {
  findStoreSubscription,
  rotateSubscriptionSecret,
  setSubscriptionState,
  storeSubscriptions,
} from '../webhooks/subscription-store.js';
import type { DeliveryState } from '../webhooks/webhook-tables.js';
import { type ConsoleKit, formBody, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { type DeliveryView, deliveriesRegion, rotatedView, webhooksView } from './console-views.js';

const StoreParams = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) });
const SubscriptionParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

function statusFilter(value: string | undefined): DeliveryState | null {
  return value === 'pending' || value === 'succeeded' || value === 'dead' ? value : null;
}

export function deliveryViewOf(row: {
  id: string;
  topic: string;
  state: DeliveryState;
  attempts: number;
  last_status_code: number | null;
  created_at: string;
  next_attempt_at: string | null;
}): DeliveryView {
  return {
    id: row.id,
    topic: row.topic,
    status: row.state,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
  };
}

/**
 * A store's webhooks page: its subscriptions (disable, re-enable, rotate the
 * secret) and its deliveries, live; "resend all failed since"; and the
 * seller's JSON API the page's scripts and an app's tools share.
 */
async function webhooksRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const { db } = app.platform.database;
  await app.register(sellerWebhookRoutes);

  /** The newest 50 deliveries of a store, optionally of one state: the webhooks page's table. */
  function storeDeliveries(tenantId: string, status: DeliveryState | null) {
    return newestStoreDeliveries(db, tenantId, status, 50);
  }

  app.get<{ Params: { tenantId: string }; Querystring: { status?: string; resentFailed?: string } }>(
    '/console/stores/:tenantId/webhooks',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = requestTranslator(request);
      const status = statusFilter(request.query.status);
      const subscriptions = await storeSubscriptions(db, found.store.id);
      const appNames = await clientNamesById(db, [...new Set(subscriptions.map((s) => s.client_id))]);
      const rows = await storeDeliveries(found.store.id, status);
      return kit.page(request, reply, t, found.seller, {
        title: t.text('webhooks.title', { store: found.store.name }),
        body: webhooksView(t, {
          store: found.store,
          nav: kit.storeNav(t, found.store.id, 'webhooks'),
          status,
          subscriptions: subscriptions.map((s) => ({
            id: s.id,
            appName: appNames.get(s.client_id) ?? s.client_id,
            topic: s.topic,
            version: s.version,
            url: s.url,
            state: s.state,
            failureStreak: Number(s.failure_streak),
            graceUntil: s.previous_secret_grace_until,
          })),
          csrf: kit.csrfToken(request, reply),
          now: request.server.platform.clock.now(),
          deliveries: rows.map(deliveryViewOf),
          resentFailed: /^[0-9]{1,9}$/.test(request.query.resentFailed ?? '') ? Number(request.query.resentFailed) : null,
        }),
      });
    },
  );

  app.post<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/resend-failed',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const back = storePath(found.store.id, '/webhooks');
      const body = formBody(request);
      if (!csrfTokenValid(request, body.csrf)) return kit.seeOther(reply, back);
      const now = request.server.platform.clock.now();
      // The form's datetime-local has no zone: the label says UTC.
      const raw = typeof body.since === 'string' ? body.since.trim() : '';
      const since = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(raw) ? `${raw}Z` : raw);
      if (Number.isNaN(since.getTime()) || since.getTime() > now.getTime()) return kit.seeOther(reply, back);
      const count = await redeliverFailedSince(db, { tenantIds: [found.store.id], clientId: null }, since, now);
      return kit.seeOther(reply, `${back}?resentFailed=${count}`);
    },
  );

  /** The store's own subscription named in the URL, after the CSRF check; a reply already sent otherwise. */
  async function subscriptionOf(request: FastifyRequest<{ Params: { tenantId: string; id: string } }>, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return null;
    const back = storePath(found.store.id, '/webhooks');
    if (!csrfTokenValid(request, formBody(request).csrf)) {
      kit.seeOther(reply, back);
      return null;
    }
    const row = await findStoreSubscription(db, found.store.id, request.params.id);
    if (!row) {
      kit.notFoundPage(request, reply, found.seller);
      return null;
    }
    return { ...found, back, subscription: row };
  }

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/state',
    { schema: { hide: true, params: SubscriptionParams } },
    async (request, reply) => {
      const found = await subscriptionOf(request, reply);
      if (!found) return reply;
      const state = formBody(request).state === 'active' ? 'active' : 'disabled';
      await setSubscriptionState(db, found.subscription.id, state, request.server.platform.clock.now());
      return kit.seeOther(reply, found.back);
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/rotate',
    { schema: { hide: true, params: SubscriptionParams } },
    async (request, reply) => {
      const found = await subscriptionOf(request, reply);
      if (!found) return reply;
      const rotated = await rotateSubscriptionSecret(db, found.subscription.id, request.server.platform);
      if (!rotated) return kit.seeOther(reply, found.back);
      const t = requestTranslator(request);
      // The secret is in this answer only (no-store), never in a URL or a log.
      return kit.page(request, reply, t, found.seller, {
        title: t.text('rotated.title'),
        body: rotatedView(t, { store: found.store, ...rotated, now: request.server.platform.clock.now() }),
      });
    },
  );

  // Server-sent events: the webhooks page's deliveries table, re-rendered when a delivery is added or changes.
  app.get<{ Params: { tenantId: string }; Querystring: { status?: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/live',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const seller = await kit.signedIn(request);
      const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
      if (!seller || !store)
        return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      const status = statusFilter(request.query.status);
      const t = requestTranslator(request);
      kit.liveRegion(request, reply, {
        event: 'deliveries',
        first: await storeDeliveries(store.id, status),
        read: () => storeDeliveries(store.id, status),
        fingerprint: (rows) => rows.map((d) => `${d.id}:${d.state}:${d.attempts}:${d.last_status_code}`).join(','),
        render: (rows) => ({ html: deliveriesRegion(t, store.id, rows.map(deliveryViewOf)) }),
      });
    },
  );
}

export const webhooksSection: ConsoleSection = {
  name: 'webhooks',
  nav: { slug: 'webhooks', label: 'console.nav.webhooks' },
  routes: webhooksRoutes,
};
