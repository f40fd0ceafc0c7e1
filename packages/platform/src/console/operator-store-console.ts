import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { findStoreWithSeller, type StoreWithSeller, searchStores } from '../accounts/index.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { deliveryStoreId, storeDeliveryPage, visibleDelivery } from '../webhooks/index.js';
import { notFoundView } from './console-views.js';
import type { OperatorFrame } from './operator-frame.js';
import { operatorDeliveryView, operatorFoundView, operatorStoreWebhooksView } from './operator-webhooks-views.js';
import type { AttemptView } from './webhook-views.js';
import { deliveryRowOf, endpointsOf } from './webhooks-console.js';

/** Deliveries the operator's view of a store lists: the newest, enough to see a pattern. */
const RECENT_DELIVERIES = 25;
/** Stores the operator's search lists at most. */
const FOUND_STORES = 20;

/** An operator page of one store: its id in the path. */
export const operatorStorePageOptions: RouteShorthandOptions = { schema: { hide: true, params: StoreParams } };

/** An operator page of one delivery of a store. */
export const operatorDeliveryPageOptions: RouteShorthandOptions = {
  schema: {
    hide: true,
    params: Type.Object({
      tenantId: Type.String({ minLength: 1, maxLength: 64 }),
      id: Type.String({ minLength: 1, maxLength: 64 }),
    }),
  },
};

/** A route of one store's page: the store in the path, the deliveries' state in the query. */
export type OperatorStoreRoute = { Params: { tenantId: string }; Querystring: { status?: string } };
/** A route of one delivery of a store. */
export type OperatorDeliveryRoute = { Params: { tenantId: string; id: string } };
type StoreRequest = FastifyRequest<OperatorStoreRoute>;
type DeliveryRequest = FastifyRequest<OperatorDeliveryRoute>;

/** The store named in the path, after the operator check; the sign-in page (401) or a 404 page sent otherwise. */
async function storeOf(
  operator: OperatorFrame,
  db: FastifyInstance['platform']['database']['db'],
  request: FastifyRequest<{ Params: { tenantId: string } }>,
  reply: FastifyReply,
): Promise<StoreWithSeller | null> {
  if (!(await operator.guard(request, reply, '/console/operator'))) return null;
  const store = await findStoreWithSeller(db, request.params.tenantId);
  if (store) return store;
  const t = requestTranslator(request);
  operator.page(request, reply, t, true, { status: 404, title: t.text('console.notFound.title'), body: notFoundView(t) });
  return null;
}

/** A store's webhooks as support sees them (D157): subscriptions and their state, the newest deliveries, read only. */
export function showStoreWebhooks(app: FastifyInstance, operator: OperatorFrame) {
  const platform = app.platform;
  const { db } = platform.database;
  return async function showStoreWebhooks(request: StoreRequest, reply: FastifyReply) {
    const store = await storeOf(operator, db, request, reply);
    if (!store) return reply;
    const t = requestTranslator(request);
    const filter = request.query.status === 'failed' ? 'failed' : 'all';
    const [subscriptions, page] = await Promise.all([
      endpointsOf(db, store.id),
      storeDeliveryPage(db, platform.config, {
        tenantId: store.id,
        filters: { failed: filter === 'failed' },
        limit: RECENT_DELIVERIES,
      }),
    ]);
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    return operator.page(request, reply, t, true, {
      title: t.text('operator.webhooks.title', { store: store.name }),
      body: operatorStoreWebhooksView(t, {
        store,
        subscriptions,
        deliveries: page.entries.map((d) => deliveryRowOf(d, byId)),
        filter,
      }),
    });
  };
}

/** One delivery of a store as support sees it (D157): its state and every attempt's outcome, status, latency and error. */
export function showStoreDelivery(app: FastifyInstance, operator: OperatorFrame) {
  const { db } = app.platform.database;
  return async function showStoreDelivery(request: DeliveryRequest, reply: FastifyReply) {
    const store = await storeOf(operator, db, request, reply);
    if (!store) return reply;
    const t = requestTranslator(request);
    const delivery = await visibleDelivery(db, { tenantIds: [store.id], clientId: null, bySession: false }, request.params.id);
    if (!delivery) {
      return operator.page(request, reply, t, true, {
        status: 404,
        title: t.text('console.notFound.title'),
        body: notFoundView(t),
      });
    }
    const endpoints = new Map((await endpointsOf(db, store.id)).map((e) => [e.id, e]));
    return operator.page(request, reply, t, true, {
      title: t.text('delivery.title', { id: delivery.id }),
      body: operatorDeliveryView(t, {
        store,
        delivery: deliveryRowOf(delivery, endpoints),
        attempts: delivery.attempt_log as AttemptView[],
      }),
    });
  };
}

/** What the operator's search box finds besides sellers and apps (D157): stores by name or id, a delivery by its id. */
export async function foundForOperator(
  t: Translator,
  db: FastifyInstance['platform']['database']['db'],
  q: string,
): Promise<string> {
  if (!q) return '';
  // Delivery ids are UUIDs, written lower-case: a pasted id in capitals is the same id.
  const deliveryId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q) ? q.toLowerCase() : null;
  const [stores, deliveryStore] = await Promise.all([
    searchStores(db, q, FOUND_STORES),
    deliveryId ? deliveryStoreId(db, deliveryId) : Promise.resolve(undefined),
  ]);
  const store = deliveryStore ? await findStoreWithSeller(db, deliveryStore) : undefined;
  return operatorFoundView(t, {
    search: q,
    stores,
    delivery: deliveryId && store ? { id: deliveryId, store } : null,
  });
}
