import { TOPIC_NAMES } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import { refuse } from '../core/refusals.js';
import { requireAdminToken } from '../http/admin-auth.js';
import { documentedList, documentedObject, errorResponse } from '../http/openapi-document.js';
import { defineListResource } from '../lists/list-resource.js';
import { listRoute } from '../lists/list-route.js';
import type { Schema } from '../storage/schema.js';
import { redeliverDelivery } from './redelivery.js';
import { setSubscriptionState } from './subscription-store.js';
import type { SubscriptionRow, WebhookTables } from './webhook-tables.js';

type DeliveryRow = Selectable<WebhookTables['webhook_deliveries']>;

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    subscription_id: row.subscription_id,
    tenant_id: row.tenant_id,
    topic: row.topic,
    status: row.state,
    attempts: Number(row.attempts),
    attempts_total: Number(row.attempts_total ?? row.attempts),
    next_attempt_at: row.next_attempt_at,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
    /** A test event sent from the console (D153). */
    test: Number(row.is_test) === 1,
  };
}

type AttemptRow = Selectable<WebhookTables['webhook_delivery_attempts']>;

function presentAttempt(a: AttemptRow) {
  return {
    attempt: Number(a.attempt),
    outcome: a.outcome,
    status_code: a.status_code,
    duration_ms: Number(a.duration_ms),
    error: a.error,
    response_body: a.response_body,
    request_headers: parseHeaders(a.request_headers),
    response_headers: parseHeaders(a.response_headers),
    next_attempt_at: a.next_attempt_at,
    started_at: a.started_at,
    worker: a.worker,
    fence: Number(a.fence),
  };
}

function parseHeaders(json: string | null): Record<string, string> | null {
  if (json === null) return null;
  try {
    return JSON.parse(json) as Record<string, string>;
  } catch {
    return null;
  }
}

/**
 * A delivery as its log shows it: every attempt with the headers it was sent
 * with and the receiver's answer, and the exact body (the outbox event's,
 * the same bytes on every attempt).
 */
export async function deliveryWithAttempts(db: Kysely<Schema>, row: DeliveryRow) {
  const [attempts, event] = await Promise.all([
    db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', row.id).orderBy('seq').execute(),
    db.selectFrom('outbox_events').select('body').where('id', '=', row.event_id).executeTakeFirst(),
  ]);
  return { ...presentDelivery(row), request_body: event?.body ?? null, attempt_log: attempts.map(presentAttempt) };
}

/** Subscriptions as the delivery log shows them: never a secret, sealed or not. */
export function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    client_id: row.client_id,
    tenant_id: row.tenant_id,
    topic: row.topic,
    version: row.version,
    url: row.url,
    state: row.state,
    failure_streak: Number(row.failure_streak),
    failing_since: row.failing_since,
    disabled_at: row.disabled_at,
    secret_rotation_grace_until: row.previous_secret_grace_until,
    description: row.description ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The delivery log: filter by status, topic, subscription, tenant; list conventions apply. */
export const deliveriesList = defineListResource<DeliveryRow, ReturnType<typeof presentDelivery>>({
  name: 'webhook-deliveries',
  fields: {
    id: { column: 'id', type: 'id' },
    status: { column: 'state', type: 'enum', values: ['pending', 'succeeded', 'dead'] },
    topic: { column: 'topic', type: 'enum', values: TOPIC_NAMES },
    subscription_id: { column: 'subscription_id', type: 'id' },
    tenant_id: { column: 'tenant_id', type: 'id' },
    event_id: { column: 'event_id', type: 'id' },
    attempts: { column: 'attempts', type: 'integer' },
    created_at: { column: 'created_at', type: 'datetime' },
    updated_at: { column: 'updated_at', type: 'datetime' },
  },
  sorts: ['created_at', 'updated_at', 'attempts'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentDelivery,
});

export const subscriptionsList = defineListResource<SubscriptionRow, ReturnType<typeof presentSubscription>>({
  name: 'webhook-subscriptions',
  fields: {
    id: { column: 'id', type: 'id' },
    tenant_id: { column: 'tenant_id', type: 'id' },
    client_id: { column: 'client_id', type: 'id' },
    topic: { column: 'topic', type: 'enum', values: TOPIC_NAMES },
    state: { column: 'state', type: 'enum', values: ['active', 'disabled'] },
    version: { column: 'version', type: 'enum', values: ['v0', 'v1'] },
    created_at: { column: 'created_at', type: 'datetime' },
  },
  sorts: ['created_at'],
  defaultSort: [{ field: 'created_at', direction: 'desc' }],
  present: presentSubscription,
});

/** A delivery or subscription in a path: its id is a UUID, so 64 characters bound it (the admin and the seller routes alike). */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const adminRoute = (operationId: string, summary: string) => ({
  operationId,
  tags: ['admin', 'webhooks'],
  summary,
  security: [{ adminToken: [] }],
});

const AnyObject = documentedObject('A delivery with its state');
const AnyList = documentedList('The list envelope (list conventions)');
const NotFound = errorResponse('No such delivery');

/** Admin API of the delivery log: list, inspect with every attempt, redeliver; subscriptions without secrets. */
export async function deliveryAdminRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAdminToken);
  const { db } = app.platform.database;

  listRoute(app, {
    url: '/admin/webhooks/deliveries',
    list: deliveriesList,
    schema: { ...adminRoute('adminListWebhookDeliveries', 'List webhook deliveries'), response: { 200: AnyList } },
    base: () => db.selectFrom('webhook_deliveries').selectAll(),
  });

  app.get<{ Params: { id: string } }>(
    '/admin/webhooks/deliveries/:id',
    {
      schema: {
        ...adminRoute('adminGetWebhookDelivery', 'One delivery with every attempt'),
        params: IdParams,
        response: { 200: AnyObject, 404: NotFound },
      },
    },
    async (request) => {
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', request.params.id).executeTakeFirst();
      if (!row) throw refuse('WEBHOOK_DELIVERY_NOT_FOUND');
      return deliveryWithAttempts(db, row);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/webhooks/deliveries/:id/redeliver',
    {
      schema: {
        ...adminRoute('adminRedeliverWebhook', 'Send a delivery again now, with a fresh retry schedule (spec-notes W4)'),
        params: IdParams,
        response: { 202: AnyObject, 404: NotFound },
      },
    },
    async (request, reply) => {
      const { clock } = request.server.platform;
      const row = await redeliverDelivery(db, request.params.id, clock.now());
      return reply.code(202).send(presentDelivery(row));
    },
  );

  listRoute(app, {
    url: '/admin/webhooks/subscriptions',
    list: subscriptionsList,
    schema: {
      ...adminRoute('adminListWebhookSubscriptions', 'List webhook subscriptions (never their secrets)'),
      response: { 200: AnyList },
    },
    base: () => db.selectFrom('webhook_subscriptions').selectAll(),
  });

  app.post<{ Params: { id: string } }>(
    '/admin/webhooks/subscriptions/:id/disable',
    {
      schema: {
        ...adminRoute(
          'adminDisableWebhookSubscription',
          'Disable a subscription: no new events are queued for it, its pending deliveries end dead (spec-notes W4)',
        ),
        params: IdParams,
        response: { 200: documentedObject('The subscription, now disabled'), 404: errorResponse('No such subscription') },
      },
    },
    async (request) => {
      // A new signup re-enables it, as after the 5-day rule (subscription-store.ts).
      const row = await setSubscriptionState(db, request.params.id, 'disabled', request.server.platform.clock.now());
      if (!row) throw refuse('WEBHOOK_SUBSCRIPTION_NOT_FOUND');
      return presentSubscription(row);
    },
  );
}
