import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientNamesById, findClientById, findSellerById, type Seller } from '../accounts/index.js';
import { type PageOptions, sendPage } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import {
  checkCredentials,
  csrfTokenValid,
  endSession,
  csrfToken as sessionCsrfToken,
  sessionSellerId,
  startSession,
} from '../identity/index.js';
import { sellerFreightRoutes } from '../shipping/index.js';
import {
  findStoreSubscription,
  newestStoreDeliveries,
  redeliverDelivery,
  redeliverFailedSince,
  rotateSubscriptionSecret,
  sellerWebhookRoutes,
  setSubscriptionState,
  storeSubscriptions,
  visibleDelivery,
  type WebhookViewer,
} from '../webhooks/index.js';
import type { DeliveryState } from '../webhooks/webhook-tables.js';
import { connectedApps, disconnectApp } from './connected-apps.js';
import { consoleAssets } from './console-assets.js';
import type { ConsoleKit, ConsoleWho } from './console-kit.js';
import {
  type AttemptView,
  appsView,
  attemptsRegion,
  chrome,
  consoleLoginView,
  type DeliveryView,
  deliveriesRegion,
  deliveryView,
  notFoundView,
  rotatedView,
  storesView,
  webhooksView,
} from './console-views.js';
import { operatorConsoleRoutes } from './operator-console.js';
import { recordsConsoleRoutes } from './records-console.js';
import { shippingConsoleRoutes } from './shipping-console.js';

const LIVE_POLL_MS = 1000;

// One CSRF token per request: a page asks for it twice (header and form) and a browser without the cookie must get one cookie.
const tokens = new WeakMap<FastifyRequest, string>();
function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  let token = tokens.get(request);
  if (!token) {
    token = sessionCsrfToken(request, reply);
    tokens.set(request, token);
  }
  return token;
}

function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The seller console (docs/console.md), server-rendered in the request's language.
 * It shares the identity provider's login session (the same cookie, so a
 * seller signed in for a consent flow is signed in here, and the other way
 * round) and its CSRF token. A store is only ever shown to its seller: any
 * other store id, like an unknown one, is a 404.
 */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.platform.database;
  await app.register(consoleAssets);
  await app.register(sellerWebhookRoutes);

  const open = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const stop of open) stop();
  });

  /** The console's page frame: its stylesheet and live module plus the page's own, and the header of whoever is signed in. */
  function frame(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    who: ConsoleWho,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return sendPage(reply, {
      ...options,
      t,
      layout: 'wide',
      styles: ['/console/assets/console.css', ...(options.styles ?? [])],
      scripts: ['/console/assets/console.js', ...(options.scripts ?? [])],
      chrome: chrome({
        t,
        csrf: csrfToken(request, reply),
        sellerName: who.name,
        back: request.method === 'GET' ? request.url : (who.home?.href ?? '/console'),
        ...(who.signOutAction ? { signOutAction: who.signOutAction } : {}),
        ...(who.home ? { home: who.home } : {}),
      }),
    });
  }

  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    seller: Seller | null,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return frame(request, reply, t, { name: seller?.name ?? null }, options);
  }

  async function signedIn(request: FastifyRequest): Promise<Seller | null> {
    const id = await sessionSellerId(request);
    return id ? ((await findSellerById(db, id)) ?? null) : null;
  }

  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { status?: number; error?: string; login?: string } = {},
  ) {
    const t = requestTranslator(request);
    return page(request, reply, t, null, {
      status: extra.status ?? 200,
      title: t.text('console.login.title'),
      body: consoleLoginView(t, { csrf: csrfToken(request, reply), ...extra }),
    });
  }

  function notFoundPage(request: FastifyRequest, reply: FastifyReply, seller: Seller | null) {
    const t = requestTranslator(request);
    return page(request, reply, t, seller, { status: 404, title: t.text('console.notFound.title'), body: notFoundView(t) });
  }

  /** The signed-in seller and one of their stores, or a reply already sent (login page or 404). */
  async function storeOf(request: FastifyRequest, reply: FastifyReply, tenantId: string) {
    const seller = await signedIn(request);
    if (!seller) {
      loginPage(request, reply, { status: 401 });
      return null;
    }
    const store = seller.tenants.find((s) => s.id === tenantId);
    if (!store) {
      notFoundPage(request, reply, seller);
      return null;
    }
    const viewer: WebhookViewer = { tenantIds: [store.id], clientId: null, bySession: true };
    return { seller, store, viewer };
  }

  const kit: ConsoleKit = { frame, page, storeOf, csrfToken, seeOther };
  await shippingConsoleRoutes(app, kit);
  await operatorConsoleRoutes(app, kit);
  await recordsConsoleRoutes(app, kit);
  await app.register(sellerFreightRoutes);

  app.get('/console', { schema: { hide: true } }, async (request, reply) => {
    const seller = await signedIn(request);
    if (!seller) return loginPage(request, reply);
    const t = requestTranslator(request);
    return page(request, reply, t, seller, { title: t.text('console.stores.title'), body: storesView(t, seller.tenants) });
  });

  app.post('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const body = asRecord(request.body);
    const t = requestTranslator(request);
    if (!csrfTokenValid(request, body.csrf))
      return loginPage(request, reply, { status: 403, error: t.text('login.error.expired') });
    const login = typeof body.login === 'string' ? body.login.trim().slice(0, 256) : '';
    const password = typeof body.password === 'string' ? body.password : '';
    if (!login || !password || password.length > 1024) {
      return loginPage(request, reply, { status: 422, login, error: t.text('login.error.missing') });
    }
    // The same check as the identity provider's login form: one throttle, one back-off per account.
    const checked = await checkCredentials(request.server.identity, { login, password, address: request.ip });
    if (checked.kind === 'wrong')
      return loginPage(request, reply, { status: 401, login, error: t.text('login.error.incorrect') });
    if (checked.kind !== 'ok') {
      reply.header('retry-after', String(checked.retryAfterSeconds));
      const error =
        checked.kind === 'busy'
          ? t.text('login.error.busy')
          : t.text('login.error.throttled', { seconds: checked.retryAfterSeconds });
      return loginPage(request, reply, { status: 429, login, error });
    }
    await startSession(request, reply, checked.seller.id);
    return seeOther(reply, '/console');
  });

  app.post('/console/logout', { schema: { hide: true } }, async (request, reply) => {
    if (csrfTokenValid(request, asRecord(request.body).csrf)) await endSession(request, reply);
    return seeOther(reply, '/console');
  });

  const StoreParams = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) });

  /** The newest 50 deliveries of a store, optionally of one state: the webhooks page's table. */
  function storeDeliveries(tenantId: string, status: string | null) {
    return newestStoreDeliveries(db, tenantId, status as DeliveryState | null, 50);
  }

  /**
   * A server-sent event stream that polls `read` each second and sends
   * `event` with the region's HTML whenever its fingerprint changes; ended by
   * the browser leaving or the server closing.
   */
  function liveRegion<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    event: string,
    first: T,
    read: () => Promise<T | undefined>,
    fingerprint: (value: T) => string,
    render: (value: T) => Record<string, unknown>,
  ): void {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    let last = fingerprint(first);
    res.write(': live\n\n');
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const now = await read();
        if (now !== undefined && fingerprint(now) !== last) {
          last = fingerprint(now);
          res.write(`event: ${event}\ndata: ${JSON.stringify(render(now))}\n\n`);
        }
      } catch {
        // The database closed under the stream (shutdown): the close handler ends it.
      } finally {
        busy = false;
      }
    }, LIVE_POLL_MS);
    const stop = () => {
      clearInterval(timer);
      open.delete(stop);
      res.end();
    };
    open.add(stop);
    request.raw.on('close', stop);
  }
  const DeliveryParams = Type.Object({
    tenantId: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.String({ minLength: 1, maxLength: 64 }),
  });

  app.get<{ Params: { tenantId: string }; Querystring: { status?: string; resentFailed?: string } }>(
    '/console/stores/:tenantId/webhooks',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = requestTranslator(request);
      const status = ['pending', 'succeeded', 'dead'].includes(request.query.status ?? '')
        ? (request.query.status as string)
        : null;
      const subscriptions = await storeSubscriptions(db, found.store.id);
      const appNames = await clientNamesById(db, [...new Set(subscriptions.map((s) => s.client_id))]);
      const rows = await storeDeliveries(found.store.id, status);
      return page(request, reply, t, found.seller, {
        title: t.text('webhooks.title', { store: found.store.name }),
        body: webhooksView(t, {
          store: found.store,
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
          csrf: csrfToken(request, reply),
          now: request.server.platform.clock.now(),
          deliveries: rows.map(deliveryViewOf),
          resentFailed: /^[0-9]{1,9}$/.test(request.query.resentFailed ?? '') ? Number(request.query.resentFailed) : null,
        }),
      });
    },
  );

  app.get<{ Params: { tenantId: string; id: string }; Querystring: { resent?: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const delivery = await visibleDelivery(db, found.viewer, request.params.id);
      if (!delivery) return notFoundPage(request, reply, found.seller);
      const t = requestTranslator(request);
      return page(request, reply, t, found.seller, {
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
          csrf: csrfToken(request, reply),
          resent: request.query.resent === '1',
        }),
      });
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id/resend',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const path = `/console/stores/${encodeURIComponent(found.store.id)}/webhooks/deliveries/${encodeURIComponent(request.params.id)}`;
      if (!csrfTokenValid(request, asRecord(request.body).csrf)) return seeOther(reply, path);
      if (!(await visibleDelivery(db, found.viewer, request.params.id))) return notFoundPage(request, reply, found.seller);
      await redeliverDelivery(db, request.params.id, request.server.platform.clock.now());
      return seeOther(reply, `${path}?resent=1`);
    },
  );

  app.post<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/resend-failed',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const back = `/console/stores/${encodeURIComponent(found.store.id)}/webhooks`;
      const body = asRecord(request.body);
      if (!csrfTokenValid(request, body.csrf)) return seeOther(reply, back);
      const now = request.server.platform.clock.now();
      // The form's datetime-local has no zone: the label says UTC.
      const raw = typeof body.since === 'string' ? body.since.trim() : '';
      const since = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(raw) ? `${raw}Z` : raw);
      if (Number.isNaN(since.getTime()) || since.getTime() > now.getTime()) return seeOther(reply, back);
      const count = await redeliverFailedSince(db, { tenantIds: [found.store.id], clientId: null }, since, now);
      return seeOther(reply, `${back}?resentFailed=${count}`);
    },
  );

  const SubscriptionParams = Type.Object({
    tenantId: Type.String({ minLength: 1, maxLength: 64 }),
    id: Type.String({ minLength: 1, maxLength: 64 }),
  });

  /** The store's own subscription named in the URL, after the CSRF check; a reply already sent otherwise. */
  async function subscriptionOf(request: FastifyRequest<{ Params: { tenantId: string; id: string } }>, reply: FastifyReply) {
    const found = await storeOf(request, reply, request.params.tenantId);
    if (!found) return null;
    const back = `/console/stores/${encodeURIComponent(found.store.id)}/webhooks`;
    if (!csrfTokenValid(request, asRecord(request.body).csrf)) {
      seeOther(reply, back);
      return null;
    }
    const row = await findStoreSubscription(db, found.store.id, request.params.id);
    if (!row) {
      notFoundPage(request, reply, found.seller);
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
      const state = asRecord(request.body).state === 'active' ? 'active' : 'disabled';
      await setSubscriptionState(db, found.subscription.id, state, request.server.platform.clock.now());
      return seeOther(reply, found.back);
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/rotate',
    { schema: { hide: true, params: SubscriptionParams } },
    async (request, reply) => {
      const found = await subscriptionOf(request, reply);
      if (!found) return reply;
      const rotated = await rotateSubscriptionSecret(db, found.subscription.id, request.server.platform);
      if (!rotated) return seeOther(reply, found.back);
      const t = requestTranslator(request);
      // The secret is in this answer only (no-store), never in a URL or a log.
      return page(request, reply, t, found.seller, {
        title: t.text('rotated.title'),
        body: rotatedView(t, { store: found.store, ...rotated, now: request.server.platform.clock.now() }),
      });
    },
  );

  app.get<{ Params: { tenantId: string }; Querystring: { disconnected?: string } }>(
    '/console/stores/:tenantId/apps',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = requestTranslator(request);
      const apps = await connectedApps(db, found.seller.id, found.store.id);
      const gone = request.query.disconnected ? await findClientById(db, request.query.disconnected) : undefined;
      return page(request, reply, t, found.seller, {
        title: t.text('apps.title', { store: found.store.name }),
        body: appsView(t, { store: found.store, apps, csrf: csrfToken(request, reply), disconnected: gone?.name ?? null }),
      });
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/apps/:id/disconnect',
    { schema: { hide: true, params: SubscriptionParams } },
    async (request, reply) => {
      const found = await storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const back = `/console/stores/${encodeURIComponent(found.store.id)}/apps`;
      if (!csrfTokenValid(request, asRecord(request.body).csrf)) return seeOther(reply, back);
      const apps = await connectedApps(db, found.seller.id, found.store.id);
      if (!apps.some((a) => a.clientId === request.params.id)) return notFoundPage(request, reply, found.seller);
      await disconnectApp(
        db,
        { sellerId: found.seller.id, tenantId: found.store.id, clientId: request.params.id },
        request.server.platform.clock.now(),
      );
      return seeOther(reply, `${back}?disconnected=${encodeURIComponent(request.params.id)}`);
    },
  );

  // Server-sent events: the webhooks page's deliveries table, re-rendered when a delivery is added or changes.
  app.get<{ Params: { tenantId: string }; Querystring: { status?: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/live',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const seller = await signedIn(request);
      const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
      if (!seller || !store)
        return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      const status = ['pending', 'succeeded', 'dead'].includes(request.query.status ?? '')
        ? (request.query.status as string)
        : null;
      const t = requestTranslator(request);
      const first = await storeDeliveries(store.id, status);
      liveRegion(
        request,
        reply,
        'deliveries',
        first,
        () => storeDeliveries(store.id, status),
        (rows) => rows.map((d) => `${d.id}:${d.state}:${d.attempts}:${d.last_status_code}`).join(','),
        (rows) => ({ html: deliveriesRegion(t, store.id, rows.map(deliveryViewOf)) }),
      );
    },
  );

  // Server-sent events: the attempts region, re-rendered whenever a new attempt or state is recorded.
  app.get<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/:id/live',
    { schema: { hide: true, params: DeliveryParams } },
    async (request, reply) => {
      const seller = await signedIn(request);
      const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
      if (!seller || !store)
        return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      const viewer: WebhookViewer = { tenantIds: [store.id], clientId: null, bySession: true };
      const t = requestTranslator(request);
      const first = await visibleDelivery(db, viewer, request.params.id);
      if (!first) return reply.code(404).send({ message: 'Not found', slug: 'NOT_FOUND', details: [], request_id: request.id });
      liveRegion(
        request,
        reply,
        'attempts',
        first,
        () => visibleDelivery(db, viewer, request.params.id),
        (d) => `${d.status}|${d.attempt_log.length}|${d.next_attempt_at}`,
        (d) => ({ html: attemptsRegion(t, d.attempt_log as AttemptView[], d.next_attempt_at), status: d.status }),
      );
    },
  );
}

function deliveryViewOf(row: {
  id: string;
  topic: string;
  state: 'pending' | 'succeeded' | 'dead';
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
