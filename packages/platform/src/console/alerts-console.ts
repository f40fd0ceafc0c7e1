import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SECRET_PAGE_ROUTE } from '../http/secret-page.js';
import { removeStoreAlertEndpoint, setStoreAlertEndpoint, storeAlertEndpoint, storeAlerts } from '../webhooks/index.js';
import { alertSecretView, alertsView } from './alerts-views.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import { type ConsoleKit, formBody, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { checkedUrl } from './subscription-console.js';
import { isWebhookNotice, noticeOf } from './webhook-views.js';

const StoreParams = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) });
type Params = { tenantId: string };

/**
 * Operational webhooks (D141): the address a store's news about its endpoints
 * goes to, set (its secret shown once), replaced or removed, and the latest
 * news sent. Every POST checks the CSRF token first. Each route is its own
 * function.
 */
async function alertsRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const page = alertsPage(app, kit);
  app.get<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/alerts',
    { schema: { hide: true, params: StoreParams } },
    (request, reply) => page(request, reply),
  );
  app.post<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/alerts',
    { schema: { hide: true, params: StoreParams }, ...SECRET_PAGE_ROUTE },
    (request, reply) => saveAddress(app, kit, page, request, reply),
  );
  app.post<{ Params: Params }>(
    '/console/stores/:tenantId/webhooks/alerts/remove',
    { schema: { hide: true, params: StoreParams } },
    (request, reply) => removeAddress(app, kit, request, reply),
  );
}

type AlertsPage = (
  request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
  reply: FastifyReply,
  form?: { status: number; error: string | null; value: string },
) => Promise<FastifyReply>;

/** The alerts page, with a refused address and its reason when there is one. */
function alertsPage(app: FastifyInstance, kit: ConsoleKit): AlertsPage {
  const { db } = app.platform.database;
  return async (request, reply, form = { status: 200, error: null, value: '' }) => {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const t = kit.translator(request);
    const [endpoint, alerts] = await Promise.all([storeAlertEndpoint(db, found.store.id), storeAlerts(db, found.store.id)]);
    const done = request.query.done;
    return kit.page(request, reply.code(form.status), t, found.seller, {
      status: form.status,
      title: t.text('alerts.title'),
      body: alertsView(t, {
        store: found.store,
        endpoint,
        alerts: alerts.map((a) => ({
          type: a.type,
          createdAt: a.created_at,
          sentAt: a.sent_at,
          attempts: Number(a.attempts),
          lastStatusCode: a.last_status_code,
          nextAttemptAt: a.next_attempt_at,
        })),
        csrf: kit.csrfToken(request, reply),
        notice: noticeOf(t, isWebhookNotice(done) ? done : null, done === 'alertsRemoved' ? t.html('alerts.removed') : ''),
        ...form,
      }),
    });
  };
}

/** A new address: checked as a subscriber URL is (SSRF guard), then its secret shown once, on a page that reflects nothing sent. */
async function saveAddress(
  app: FastifyInstance,
  kit: ConsoleKit,
  page: AlertsPage,
  request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
  reply: FastifyReply,
) {
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return reply;
  const back = storePath(found.store.id, '/webhooks/alerts');
  const body = formBody(request);
  if (!kit.csrfValid(request, body.csrf)) return kit.seeOther(reply, `${back}?done=expired`);
  const t = kit.translator(request);
  const raw = String(body.url ?? '')
    .trim()
    .slice(0, 2048);
  const url = raw ? await checkedUrl(t, raw, 'v1', app) : t.text('endpoint.error.url');
  if (typeof url === 'string') return page(request, reply, { status: 422, error: url, value: raw });
  const secret = await setStoreAlertEndpoint(app.platform.database.db, { tenantId: found.store.id, url: url.href }, app.platform);
  return kit.secretPage(request, reply, t, found.seller, {
    back,
    title: t.text('alerts.secret.title'),
    scripts: ['/console/assets/webhooks.js'],
    body: alertSecretView(t, { store: found.store, secret }),
  });
}

/** Stops the alerts, after the confirmation (D69). */
async function removeAddress(
  app: FastifyInstance,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
) {
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return reply;
  const back = storePath(found.store.id, '/webhooks/alerts');
  if (!kit.csrfValid(request, formBody(request).csrf)) return kit.seeOther(reply, `${back}?done=expired`);
  const t = kit.translator(request);
  // Without the console module the form arrives unconfirmed: the same question on a page (D69).
  if (!isConfirmed(request.body))
    return kit.page(request, reply, t, found.seller, {
      title: t.text('confirm.title'),
      body: confirmationView(t, {
        confirm: {
          question: t.text('alerts.remove.question'),
          effect: t.text('alerts.remove.effect'),
          yes: t.text('alerts.remove'),
        },
        action: request.url,
        csrf: kit.csrfToken(request, reply),
        back,
      }),
    });
  await removeStoreAlertEndpoint(app.platform.database.db, found.store.id);
  return kit.seeOther(reply, `${back}?done=alertsRemoved`);
}

export const alertsSection: ConsoleSection = { name: 'alerts', routes: alertsRoutes };
