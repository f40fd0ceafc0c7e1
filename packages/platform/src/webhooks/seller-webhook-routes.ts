import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { listTenantsOfSeller } from '../accounts/index.js';
import { invalidParameter, notFound, PlatformError } from '../core/platform-error.js';
import { documentedList, documentedObject, errorResponse, tenantHeaders } from '../http/openapi-document.js';
import { csrfTokenValid, requireAccessToken, sessionSellerId } from '../identity/index.js';
import { listRoute } from '../lists/list-route.js';
import type { Schema } from '../storage/schema.js';
import { deliveriesList, deliveryWithAttempts, presentDelivery, subscriptionsList } from './delivery-admin-routes.js';
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

const unauthorized = () =>
  new PlatformError('UNAUTHORIZED', {
    message: 'Sign in to the console or send a bearer token',
    headers: { 'www-authenticate': 'Bearer realm="feira"' },
  });

/** The viewer of a request: a bearer token (scope open:webhook:write) or the console's login session. */
async function webhookViewer(request: FastifyRequest, reply: FastifyReply): Promise<WebhookViewer> {
  if (request.headers.authorization) {
    await requireAccessToken('open:webhook:write').call(request.server, request, reply);
    const seller = request.seller;
    if (!seller) throw unauthorized();
    return { tenantIds: [...seller.tenants], clientId: seller.clientId, bySession: false };
  }
  const sellerId = await sessionSellerId(request);
  if (!sellerId) throw unauthorized();
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

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
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

/**
 * The seller's own delivery log: the JSON the console reads,
 * usable by a seller's tools with their session or an app's token. List
 * conventions apply (filters, sort, cursor pagination). A POST made with the
 * session must carry the CSRF token in `X-CSRF-Token`.
 */
export async function sellerWebhookRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.platform.database;

  listRoute(app, {
    url: '/seller/v1/webhooks/subscriptions',
    list: subscriptionsList,
    schema: route('List the webhook subscriptions of your stores (never their secrets)', 'listSellerWebhookSubscriptions', {
      200: documentedList('A page of subscriptions (list conventions)'),
      ...SELLER_REFUSALS,
    }),
    base: async (request, reply) => visibleSubscriptions(db, await webhookViewer(request, reply)),
  });

  listRoute(app, {
    url: '/seller/v1/webhooks/deliveries',
    list: deliveriesList,
    schema: route('List the webhook deliveries of your stores', 'listSellerWebhookDeliveries', {
      200: documentedList('A page of deliveries (list conventions)'),
      ...SELLER_REFUSALS,
    }),
    base: async (request, reply) => visibleDeliveries(db, await webhookViewer(request, reply)),
  });

  app.get<{ Params: { id: string } }>(
    '/seller/v1/webhooks/deliveries/:id',
    {
      schema: {
        ...route('One delivery of your stores with every attempt', 'getSellerWebhookDelivery', {
          200: documentedObject('The delivery and its attempts'),
          ...ONE_DELIVERY_REFUSALS,
        }),
        params: IdParams,
      },
    },
    async (request, reply) => {
      const delivery = await visibleDelivery(db, await webhookViewer(request, reply), request.params.id);
      if (!delivery) throw notFound('Delivery');
      return delivery;
    },
  );

  app.post<{ Params: { id: string } }>(
    '/seller/v1/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        ...route('Send a delivery of your stores again now (spec-notes W4)', 'redeliverSellerWebhookDelivery', {
          202: documentedObject('The delivery, due again now'),
          ...ONE_DELIVERY_REFUSALS,
        }),
        params: IdParams,
      },
    },
    async (request, reply) => {
      const viewer = await webhookViewer(request, reply);
      if (viewer.bySession && !csrfTokenValid(request, request.headers['x-csrf-token'])) {
        throw new PlatformError('FORBIDDEN', { message: 'The X-CSRF-Token header is missing or wrong' });
      }
      if (!(await visibleDelivery(db, viewer, request.params.id))) throw notFound('Delivery');
      const row = await redeliverDelivery(db, request.params.id, request.server.platform.clock.now());
      return reply.code(202).send(presentDelivery(row));
    },
  );

  const RedeliverFailedBody = Type.Object(
    {
      since: Type.String({ format: 'date-time', description: 'Failed deliveries created at or after this instant' }),
      subscription_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    },
    { additionalProperties: false },
  );

  app.post<{ Body: { since: string; subscription_id?: string } }>(
    '/seller/v1/webhooks/deliveries/redeliver-failed',
    {
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
    },
    async (request, reply) => {
      const viewer = await webhookViewer(request, reply);
      if (viewer.bySession && !csrfTokenValid(request, request.headers['x-csrf-token'])) {
        throw new PlatformError('FORBIDDEN', { message: 'The X-CSRF-Token header is missing or wrong' });
      }
      const now = request.server.platform.clock.now();
      const since = new Date(request.body.since);
      if (Number.isNaN(since.getTime()) || since.getTime() > now.getTime()) {
        throw invalidParameter('since', 'body', 'must be a date-time that is not in the future');
      }
      const redelivered = await redeliverFailedSince(
        db,
        { tenantIds: viewer.tenantIds, clientId: viewer.clientId, subscriptionId: request.body.subscription_id },
        since,
        now,
      );
      return reply.code(202).send({ redelivered });
    },
  );
}
