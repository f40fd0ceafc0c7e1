import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Kysely } from 'kysely';
import { listTenantsOfSeller } from '../accounts/index.js';
import { refuse, refuseField } from '../core/refusals.js';
import { documentedList, documentedObject, errorResponse, tenantHeaders } from '../http/openapi-document.js';
import { csrfTokenValid, requireAccessToken, sessionSellerId } from '../identity/index.js';
import { listRoute } from '../lists/list-route.js';
import type { Schema } from '../storage/schema.js';
import { deliveriesList, deliveryWithAttempts, IdParams, presentDelivery, subscriptionsList } from './delivery-admin-routes.js';
import { redeliverDelivery, redeliverFailedSince } from './redelivery.js';

/**
 * Who is looking at the delivery log: the stores they may see and, for an
 * app's token, only that app's subscriptions. A seller signed in to the
 * console sees every subscription of their own stores; nobody sees another
 * seller's (a delivery of another store answers 404, as an unknown one).
 */
export interface WebhookViewer {
  tenantIds: string[];
  clientId: string | null;
  /** True when authenticated by the browser session: state changes then need the CSRF header. */
  bySession: boolean;
}

/** The viewer of a request: a bearer token (scope open:webhook:write) or the console's login session. */
async function webhookViewer(request: FastifyRequest, reply: FastifyReply): Promise<WebhookViewer> {
  if (request.headers.authorization) {
    await requireAccessToken('open:webhook:write').call(request.server, request, reply);
    const seller = request.seller;
    if (!seller) throw refuse('WEBHOOK_SIGN_IN_REQUIRED');
    return { tenantIds: [...seller.tenants], clientId: seller.clientId, bySession: false };
  }
  const sellerId = await sessionSellerId(request);
  if (!sellerId) throw refuse('WEBHOOK_SIGN_IN_REQUIRED');
  const tenants = await listTenantsOfSeller(request.server.platform.database.db, sellerId);
  return { tenantIds: tenants.map((t) => t.id), clientId: null, bySession: true };
}

function visibleSubscriptions(db: Kysely<Schema>, viewer: WebhookViewer) {
  let query = db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('tenant_id', 'in', viewer.tenantIds.length > 0 ? viewer.tenantIds : ['\u0001none']);
  if (viewer.clientId) query = query.where('client_id', '=', viewer.clientId);
  return query;
}

function visibleDeliveries(db: Kysely<Schema>, viewer: WebhookViewer) {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', 'in', viewer.tenantIds.length > 0 ? viewer.tenantIds : ['\u0001none']);
  if (viewer.clientId) {
    const clientId = viewer.clientId;
    query = query.where('subscription_id', 'in', (eb) =>
      eb.selectFrom('webhook_subscriptions').select('id').where('client_id', '=', clientId),
    );
  }
  return query;
}

/** One delivery the viewer may see, with every attempt; undefined otherwise. */
export async function visibleDelivery(db: Kysely<Schema>, viewer: WebhookViewer, id: string) {
  const row = await visibleDeliveries(db, viewer).where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return deliveryWithAttempts(db, row);
}

type DeliveryParams = Static<typeof IdParams>;
/** The refusals every seller webhook route can answer, whether called with the console session or an app token. */
const SELLER_REFUSALS = {
  400: errorResponse('A token for several stores named none in X-Tenant-Id, or a bad list parameter'),
  401: errorResponse('No console session and no valid bearer token'),
  403: errorResponse('The token lacks open:webhook:write, or the CSRF token is missing or wrong'),
  429: errorResponse(
    'With a bearer token: the app is over its API rate limit for this store (spec-notes I20); Retry-After says when to try again',
  ),
};
const ONE_DELIVERY_REFUSALS = { ...SELLER_REFUSALS, 404: errorResponse('No such delivery in your stores') };

const route = (summary: string, operationId: string, response: Record<number, unknown>) => ({
  tags: ['webhooks'],
  summary,
  operationId,
  response,
  // Read by the access-token guard when called with a token (webhookViewer): declared so the document and clients carry it.
  headers: tenantHeaders,
  security: [{ feiraOAuth: ['open:webhook:write'] as string[] }, { consoleSession: [] as string[] }] as Array<
    Record<string, string[]>
  >,
});

/** A POST made with the console session carries the CSRF token in `X-CSRF-Token`; one made with a token needs none. */
function checkSessionCsrf(request: FastifyRequest, viewer: WebhookViewer): void {
  if (viewer.bySession && !csrfTokenValid(request, request.headers['x-csrf-token'])) {
    throw refuse('IDENTITY_SESSION_CSRF_INVALID');
  }
}

/**
 * The seller's own delivery log: the JSON the console reads,
 * usable by a seller's tools with their session or an app's token. List
 * conventions apply (filters, sort, cursor pagination). A POST made with the
 * session must carry the CSRF token in `X-CSRF-Token`.
 */
export async function sellerWebhookRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.platform.database;
  subscriptionListRoute(app, db);
  deliveryListRoute(app, db);
  app.get<{ Params: DeliveryParams }>('/seller/v1/webhooks/deliveries/:id', getDeliveryOptions, getDelivery(db));
  app.post<{ Params: DeliveryParams }>('/seller/v1/webhooks/deliveries/:id/redeliver', redeliverOptions, redeliver(db));
  app.post<{ Body: RedeliverFailedBody }>(
    '/seller/v1/webhooks/deliveries/redeliver-failed',
    redeliverFailedOptions,
    redeliverFailed(db),
  );
}

/** The subscriptions of the viewer's stores, with the list conventions (never their secrets). */
function subscriptionListRoute(app: FastifyInstance, db: Kysely<Schema>): void {
  listRoute(app, {
    url: '/seller/v1/webhooks/subscriptions',
    list: subscriptionsList,
    schema: route('List the webhook subscriptions of your stores (never their secrets)', 'listSellerWebhookSubscriptions', {
      200: documentedList('A page of subscriptions (list conventions)'),
      ...SELLER_REFUSALS,
    }),
    base: async (request, reply) => visibleSubscriptions(db, await webhookViewer(request, reply)),
  });
}

/** The deliveries of the viewer's stores, with the list conventions. */
function deliveryListRoute(app: FastifyInstance, db: Kysely<Schema>): void {
  listRoute(app, {
    url: '/seller/v1/webhooks/deliveries',
    list: deliveriesList,
    schema: route('List the webhook deliveries of your stores', 'listSellerWebhookDeliveries', {
      200: documentedList('A page of deliveries (list conventions)'),
      ...SELLER_REFUSALS,
    }),
    base: async (request, reply) => visibleDeliveries(db, await webhookViewer(request, reply)),
  });
}

/** GET of one delivery. */
const getDeliveryOptions: RouteShorthandOptions = {
  schema: {
    ...route('One delivery of your stores with every attempt', 'getSellerWebhookDelivery', {
      200: documentedObject('The delivery and its attempts'),
      ...ONE_DELIVERY_REFUSALS,
    }),
    params: IdParams,
  },
};

/** One delivery of the viewer's stores with every attempt; another store's is a 404, as an unknown one. */
function getDelivery(db: Kysely<Schema>) {
  return async function getDelivery(request: FastifyRequest<{ Params: DeliveryParams }>, reply: FastifyReply) {
    const delivery = await visibleDelivery(db, await webhookViewer(request, reply), request.params.id);
    if (!delivery) throw refuse('WEBHOOK_DELIVERY_NOT_FOUND');
    return delivery;
  };
}

/** POST of one delivery's redelivery. */
const redeliverOptions: RouteShorthandOptions = {
  schema: {
    ...route('Send a delivery of your stores again now (spec-notes W4)', 'redeliverSellerWebhookDelivery', {
      202: documentedObject('The delivery, due again now'),
      ...ONE_DELIVERY_REFUSALS,
    }),
    params: IdParams,
  },
};

/** Makes one delivery of the viewer's stores due again now. */
function redeliver(db: Kysely<Schema>) {
  return async function redeliver(request: FastifyRequest<{ Params: DeliveryParams }>, reply: FastifyReply) {
    const viewer = await webhookViewer(request, reply);
    checkSessionCsrf(request, viewer);
    if (!(await visibleDelivery(db, viewer, request.params.id))) throw refuse('WEBHOOK_DELIVERY_NOT_FOUND');
    const row = await redeliverDelivery(db, request.params.id, request.server.platform.clock.now());
    return reply.code(202).send(presentDelivery(row));
  };
}

const RedeliverFailedBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'Failed deliveries created at or after this instant' }),
    subscription_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
type RedeliverFailedBody = Static<typeof RedeliverFailedBody>;

/** POST of the failed deliveries' redelivery. */
const redeliverFailedOptions: RouteShorthandOptions = {
  schema: {
    ...route(
      'Send every failed delivery of your stores created since a time again now (spec-notes W4)',
      'redeliverFailedSellerWebhookDeliveries',
      {
        202: Type.Object({ redelivered: Type.Integer({ minimum: 0 }) }, { description: 'How many deliveries are due again' }),
        ...SELLER_REFUSALS,
        422: errorResponse('since is not a date-time, or lies in the future'),
      },
    ),
    body: RedeliverFailedBody,
  },
};

/** Makes every failed delivery of the viewer's stores created since a time (of one subscription, if named) due again now. */
function redeliverFailed(db: Kysely<Schema>) {
  return async function redeliverFailed(request: FastifyRequest<{ Body: RedeliverFailedBody }>, reply: FastifyReply) {
    const viewer = await webhookViewer(request, reply);
    checkSessionCsrf(request, viewer);
    const now = request.server.platform.clock.now();
    const since = new Date(request.body.since);
    if (Number.isNaN(since.getTime()) || since.getTime() > now.getTime()) {
      throw refuseField('WEBHOOK_SINCE_INVALID', 'since', 'body');
    }
    const redelivered = await redeliverFailedSince(
      db,
      { tenantIds: viewer.tenantIds, clientId: viewer.clientId, subscriptionId: request.body.subscription_id },
      since,
      now,
    );
    return reply.code(202).send({ redelivered });
  };
}
