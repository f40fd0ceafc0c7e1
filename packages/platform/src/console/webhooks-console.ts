import { TOPIC_NAMES } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { clientNamesById } from '../accounts/index.js';
import { refuse } from '../core/refusals.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import {
  countStoreDeliveries,
  type DeliveryLogEntry,
  type DeliveryLogFilters,
  type DeliveryState,
  DISABLE_AFTER_FAILING_MS,
  deleteStoreSubscription,
  failedOfDisabledSince,
  findStoreSubscription,
  maskedWebhookUrl,
  redeliverFailedSince,
  rotateStoreSubscriptionSecret,
  type StoreSubscription,
  sellerWebhookRoutes,
  setSubscriptionState,
  storeDeliveryPage,
  storeSubscriptions,
} from '../webhooks/index.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import { type ConsoleKit, formBody, fromZonedInput, storePath, timeZoneLabel, topicLabel, toZonedInput } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import {
  confirmPageView,
  type DeliveryRowView,
  deliveriesRegion,
  type EndpointView,
  isWebhookNotice,
  type LogCount,
  type LogFilterView,
  noticeOf,
  webhooksView,
} from './webhook-views.js';

const SubscriptionParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});
/** Rows per page of the delivery log. */
const DELIVERY_PAGE = 50;

type LogQuery = Partial<
  Record<
    'status' | 'topic' | 'subscription' | 'from' | 'to' | 'q' | 'cursor' | 'at' | 'done' | 'resentFailed' | 'skipped',
    string
  >
>;

/** The log's status choice: a stored state, or `failed` (dead, or still retrying after a failure). */
function statusFilter(value: string | undefined): DeliveryState | 'failed' | undefined {
  return value === 'pending' || value === 'succeeded' || value === 'dead' || value === 'failed' ? value : undefined;
}

/** The form's `from` field carried through a confirmation page. */
function fromField(request: FastifyRequest): Record<string, string> {
  return formBody(request).from === 'subscription' ? { from: 'subscription' } : {};
}

/** A store's subscriptions as pages show them (URL masked, D65), with their apps' names. */
export async function endpointsOf(db: FastifyInstance['platform']['database']['db'], tenantId: string): Promise<EndpointView[]> {
  const subscriptions = await storeSubscriptions(db, tenantId);
  const names = await clientNamesById(db, [...new Set(subscriptions.map((s) => s.client_id))]);
  return subscriptions.map((s) => endpointView(s, names.get(s.client_id) ?? s.client_id));
}

/**
 * How a subscription is doing: failing (failed attempts in a row, still
 * active), disabled by the platform (its failures ran for the W4 period), or
 * disabled by the seller.
 */
function healthOf(s: StoreSubscription): EndpointView['health'] {
  if (s.state === 'disabled') {
    const ranFor = s.failing_since && s.disabled_at ? Date.parse(s.disabled_at) - Date.parse(s.failing_since) : 0;
    return ranFor >= DISABLE_AFTER_FAILING_MS ? 'autoDisabled' : 'disabled';
  }
  return Number(s.failure_streak) > 0 ? 'failing' : 'ok';
}

export function endpointView(s: StoreSubscription, appName: string): EndpointView {
  return {
    health: healthOf(s),
    failingSince: s.failing_since,
    disabledAt: s.disabled_at,
    id: s.id,
    appName,
    topic: s.topic,
    version: s.version,
    url: maskedWebhookUrl(s.url),
    state: s.state,
    failureStreak: Number(s.failure_streak),
    graceUntil: s.previous_secret_grace_until,
    description: s.description ?? null,
  };
}

export function deliveryRowOf(d: DeliveryLogEntry, endpoints: Map<string, EndpointView>): DeliveryRowView {
  return {
    id: d.id,
    eventId: d.event_id,
    topic: d.topic,
    status: d.status,
    attempts: Number(d.attempts),
    lastStatusCode: d.last_status_code,
    createdAt: d.created_at,
    nextAttemptAt: d.next_attempt_at,
    test: d.test,
    endpoint: endpoints.get(d.subscription_id) ?? null,
  };
}

/** The log's filters read from the query: what the form shows back and what the store's query takes. */
function logFilters(query: LogQuery, zone: string): { shown: LogFilterView; filters: DeliveryLogFilters; query: string } {
  const pick = (value: string | undefined, max: number) => (value ?? '').trim().slice(0, max);
  const shown: LogFilterView = {
    status: statusFilter(query.status) ?? '',
    topic: (TOPIC_NAMES as readonly string[]).includes(query.topic ?? '') ? (query.topic as string) : '',
    subscription: /^[A-Za-z0-9-]{1,64}$/.test(query.subscription ?? '') ? (query.subscription as string) : '',
    from: pick(query.from, 19),
    to: pick(query.to, 19),
    q: /^[0-9A-Za-z-]{1,64}$/.test(pick(query.q, 64)) ? pick(query.q, 64) : '',
  };
  const from = shown.from ? fromZonedInput(shown.from, zone) : null;
  const to = shown.to ? fromZonedInput(shown.to, zone) : null;
  if (!from) shown.from = '';
  if (!to) shown.to = '';
  const filters: DeliveryLogFilters = {
    status: shown.status === 'failed' ? undefined : (statusFilter(shown.status) as DeliveryState | undefined),
    failed: shown.status === 'failed',
    topic: shown.topic || undefined,
    subscriptionId: shown.subscription || undefined,
    from: from?.toISOString(),
    to: to?.toISOString(),
    search: shown.q || undefined,
  };
  const params = new URLSearchParams(Object.entries(shown).filter(([, v]) => v !== '') as Array<[string, string]>);
  return { shown, filters, query: params.toString() };
}

type Platform = FastifyInstance['platform'];
type StoreRequest = FastifyRequest<{ Params: { tenantId: string } }>;
type SubscriptionRequest = FastifyRequest<{ Params: { tenantId: string; id: string } }>;

/**
 * A store's webhooks page: its subscriptions (open one, disable with a
 * confirmation, re-enable, rotate the secret with a chosen grace) and its
 * delivery log (filters by status, event type, endpoint and period, search by
 * delivery or event id, cursor paging, new deliveries live on the first
 * page); "resend all failed since"; and the seller's JSON API the page's
 * scripts and an app's tools share.
 */
async function webhooksRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const platform = app.platform;
  await app.register(sellerWebhookRoutes);
  app.get<{ Params: { tenantId: string }; Querystring: LogQuery }>(
    '/console/stores/:tenantId/webhooks',
    storePageOptions(),
    webhooksPage(platform, kit),
  );
  app.post<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/deliveries/resend-failed',
    storePageOptions(),
    resendFailed(platform, kit),
  );
  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/state',
    subscriptionFormOptions(),
    subscriptionState(platform, kit),
  );
  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/delete',
    subscriptionFormOptions(),
    deleteSubscription(platform, kit),
  );
  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/rotate',
    subscriptionFormOptions(),
    rotateSecret(platform, kit),
  );
  app.get<{ Params: { tenantId: string }; Querystring: LogQuery }>(
    '/console/stores/:tenantId/webhooks/deliveries/live',
    storePageOptions(),
    liveDeliveries(platform, kit),
  );
}

/** A console page or form of one store (kept out of the OpenAPI document). */
function storePageOptions(): RouteShorthandOptions {
  return { schema: { hide: true, params: StoreParams } };
}

/** A form posted about one of a store's subscriptions (kept out of the OpenAPI document). */
function subscriptionFormOptions(): RouteShorthandOptions {
  return { schema: { hide: true, params: SubscriptionParams } };
}

/** One page of the store's delivery log. */
async function logPage(platform: Platform, tenantId: string, filters: DeliveryLogFilters, nextToken: string | undefined) {
  const { db } = platform.database;
  return storeDeliveryPage(db, platform.config, { tenantId, filters, nextToken, limit: DELIVERY_PAGE });
}

/** The webhooks page: subscriptions, the filtered delivery log and the "resend all failed" form. */
function webhooksPage(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function webhooksPage(
    request: FastifyRequest<{ Params: { tenantId: string }; Querystring: LogQuery }>,
    reply: FastifyReply,
  ) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const t = requestTranslator(request);
    const q = request.query;
    const { shown, filters, query } = logFilters(q, t.timeZone);
    const endpoints = await endpointsOf(db, found.store.id);
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    const cursor = /^[A-Za-z0-9._~-]{1,2048}$/.test(q.cursor ?? '') ? q.cursor : undefined;
    let page: Awaited<ReturnType<typeof logPage>>;
    let notice = noticeOf(t, isWebhookNotice(q.done) ? q.done : null, resentText(t, q));
    const counting = countStoreDeliveries(db, { tenantId: found.store.id, filters });
    let at = cursor !== undefined && /^[0-9]{1,9}$/.test(q.at ?? '') ? Number(q.at) : 0;
    try {
      page = await logPage(platform, found.store.id, filters, cursor);
    } catch {
      // A cursor from other filters, or one tampered with: the first page, said so.
      page = await logPage(platform, found.store.id, filters, undefined);
      notice = noticeOf(t, null, t.html('webhooks.notice.badCursor'));
      at = 0;
    }
    const count = { ...(await counting), at };
    const now = platform.clock.now();
    return kit.page(request, reply, t, found.seller, {
      title: t.text('webhooks.title', { store: found.store.name }),
      scripts: ['/console/assets/webhooks.js'],
      body: webhooksView(t, {
        store: found.store,
        nav: kit.storeNav(t, found.store.id, 'webhooks'),
        subscriptions: endpoints,
        topics: TOPIC_NAMES,
        deliveries: page.entries.map((d) => deliveryRowOf(d, byId)),
        filters: shown,
        filterQuery: query,
        nextToken: page.nextToken,
        paged: cursor !== undefined,
        count,
        csrf: kit.csrfToken(request, reply),
        now,
        sinceDefault: toZonedInput(new Date(now.getTime() - 24 * 3600 * 1000), t.timeZone),
        untilDefault: toZonedInput(new Date(now.getTime() + 60_000), t.timeZone),
        zoneLabel: timeZoneLabel(t),
        notice,
      }),
    });
  };
}

function resentText(t: Translator, q: LogQuery): string {
  if (!/^[0-9]{1,9}$/.test(q.resentFailed ?? '')) return '';
  const skipped = /^[0-9]{1,9}$/.test(q.skipped ?? '') ? Number(q.skipped) : 0;
  const resent = t.html('webhooks.resentFailed', { count: Number(q.resentFailed) });
  return skipped > 0 ? `${resent} ${t.html('webhooks.resentFailed.skipped', { count: skipped })}` : resent;
}

/** "Resend all failed" of a period, after the confirmation (D69); disabled subscriptions' deliveries left out and counted. */
function resendFailed(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function resendFailed(request: StoreRequest, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const back = storePath(found.store.id, '/webhooks');
    const body = formBody(request);
    if (!kit.csrfValid(request, body.csrf)) return kit.seeOther(reply, `${back}?done=expired`);
    const t = kit.translator(request);
    const now = platform.clock.now();
    // The form's datetime-local fields are in the seller's zone, as the page says.
    const since = typeof body.since === 'string' ? fromZonedInput(body.since, t.timeZone) : null;
    const until = typeof body.until === 'string' && body.until !== '' ? fromZonedInput(body.until, t.timeZone) : undefined;
    if (!since || since.getTime() > now.getTime() || until === null || (until && until <= since))
      return kit.seeOther(reply, `${back}?done=badSince`);
    if (!isConfirmed(body)) {
      const fields = { since: String(body.since), ...(until ? { until: String(body.until) } : {}) };
      return kit.page(request, reply, t, found.seller, {
        title: t.text('confirm.title'),
        body: confirmationView(t, {
          confirm: {
            question: t.text('webhooks.resendFailed.question'),
            effect: t.text('webhooks.resendFailed.effect'),
            yes: t.text('webhooks.resendFailed.submit'),
          },
          action: request.url,
          csrf: kit.csrfToken(request, reply),
          back,
          fields,
        }),
      });
    }
    // Deliveries of disabled subscriptions would go straight back to dead (W4): left out and counted apart.
    const scope = { tenantIds: [found.store.id], clientId: null, activeOnly: true, ...(until ? { until } : {}) };
    const [count, skipped] = await Promise.all([
      redeliverFailedSince(db, scope, since, now),
      failedOfDisabledSince(db, found.store.id, since, until),
    ]);
    return kit.seeOther(reply, `${back}?resentFailed=${count}${skipped > 0 ? `&skipped=${skipped}` : ''}#deliveries`);
  };
}

/** The store's own subscription named in the URL, after the CSRF check; a reply already sent otherwise. */
async function subscriptionOf(platform: Platform, kit: ConsoleKit, request: SubscriptionRequest, reply: FastifyReply) {
  const { db } = platform.database;
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return null;
  const back = storePath(found.store.id, '/webhooks');
  if (!csrfTokenValid(request, formBody(request).csrf)) {
    kit.seeOther(reply, `${back}?done=expired`);
    return null;
  }
  const row = await findStoreSubscription(db, found.store.id, request.params.id);
  if (!row) {
    kit.notFoundPage(request, reply, found.seller);
    return null;
  }
  // Back where the form was: the subscription's page (its forms say so) or the store's webhooks page.
  const page = storePath(found.store.id, `/webhooks/subscriptions/${encodeURIComponent(row.id)}`);
  return { ...found, back: formBody(request).from === 'subscription' ? page : back, subscription: row };
}

/** Without the console module a confirmed form arrives unconfirmed: the same question on a page (no-JS fallback). */
function confirmFirst(
  kit: ConsoleKit,
  request: SubscriptionRequest,
  reply: FastifyReply,
  found: NonNullable<Awaited<ReturnType<typeof subscriptionOf>>>,
  ask: { question: string; effect: string; yes: string; fields: Record<string, string>; danger?: boolean },
): FastifyReply | null {
  if (formBody(request).confirmed === '1') return null;
  const t = requestTranslator(request);
  return kit.page(request, reply, t, found.seller, {
    title: t.text('confirm.title'),
    body: confirmPageView(t, {
      ...ask,
      action: request.url,
      csrf: kit.csrfToken(request, reply),
      back: found.back,
    }),
  });
}

/** Disables a subscription (asked first) or enables it again. */
function subscriptionState(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function subscriptionState(request: SubscriptionRequest, reply: FastifyReply) {
    const found = await subscriptionOf(platform, kit, request, reply);
    if (!found) return reply;
    const state = formBody(request).state === 'active' ? 'active' : 'disabled';
    if (state === 'disabled') {
      const t = requestTranslator(request);
      const sub = (await storeSubscriptions(db, found.store.id)).find((s) => s.id === found.subscription.id);
      const appName = sub ? ((await clientNamesById(db, [sub.client_id])).get(sub.client_id) ?? sub.client_id) : '';
      const asked = confirmFirst(kit, request, reply, found, {
        question: t.text('webhooks.confirm.disable', { topic: topicLabel(t, sub?.topic ?? ''), app: appName }),
        effect: t.text('webhooks.confirm.disableEffect'),
        yes: t.text('webhooks.disable'),
        fields: { state: 'disabled', ...fromField(request) },
      });
      if (asked) return asked;
    }
    await setSubscriptionState(db, found.subscription.id, state, platform.clock.now());
    return kit.seeOther(reply, `${found.back}?done=${state === 'active' ? 'enabled' : 'disabled'}`);
  };
}

/** Deletes a subscription (asked first, as a destruction): its deliveries and their attempts go with it. */
function deleteSubscription(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function deleteSubscription(request: SubscriptionRequest, reply: FastifyReply) {
    const found = await subscriptionOf(platform, kit, request, reply);
    if (!found) return reply;
    const t = kit.translator(request);
    const sub = (await endpointsOf(db, found.store.id)).find((s) => s.id === found.subscription.id);
    const asked = confirmFirst(kit, request, reply, found, {
      question: t.text('webhooks.confirm.delete', { topic: topicLabel(t, sub?.topic ?? ''), app: sub?.appName ?? '' }),
      effect: t.text('webhooks.confirm.deleteEffect'),
      yes: t.text('webhooks.delete'),
      fields: fromField(request),
      danger: true,
    });
    if (asked) return asked;
    await deleteStoreSubscription(db, found.store.id, found.subscription.id);
    return kit.seeOther(reply, `${storePath(found.store.id, '/webhooks')}?done=deleted`);
  };
}

/** Rotates a subscription's secret with the chosen grace (asked first), then shows the new one on its own page. */
function rotateSecret(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function rotateSecret(request: SubscriptionRequest, reply: FastifyReply) {
    const found = await subscriptionOf(platform, kit, request, reply);
    if (!found) return reply;
    const raw = formBody(request).grace_hours;
    const hours = typeof raw === 'string' && /^[0-9]{1,2}$/.test(raw) ? Math.min(24, Number(raw)) : 1;
    const t = requestTranslator(request);
    const asked = confirmFirst(kit, request, reply, found, {
      question: t.text('webhooks.confirm.rotateShort'),
      effect: t.text('webhooks.confirm.rotateEffect'),
      yes: t.text('webhooks.rotate'),
      fields: { grace_hours: String(hours), ...fromField(request) },
    });
    if (asked) return asked;
    const rotated = await rotateStoreSubscriptionSecret(
      db,
      { tenantId: found.store.id, id: found.subscription.id, graceMs: hours * 3600 * 1000 },
      platform,
    );
    if (!rotated) return kit.seeOther(reply, found.back);
    // Post/redirect/get (D64): the page that shows the new secret reads it; reloading it rotates nothing.
    return kit.seeOther(
      reply,
      storePath(found.store.id, `/webhooks/subscriptions/${encodeURIComponent(found.subscription.id)}/secret?rotated=1`),
    );
  };
}

/** Server-sent events: the webhooks page's deliveries table (first page, same filters), re-rendered when a delivery is added or changes. */
function liveDeliveries(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function liveDeliveries(
    request: FastifyRequest<{ Params: { tenantId: string }; Querystring: LogQuery }>,
    reply: FastifyReply,
  ) {
    const seller = await kit.signedIn(request);
    const store = seller?.tenants.find((s) => s.id === request.params.tenantId);
    if (!seller || !store) throw refuse('CONSOLE_LIVE_NOT_FOUND');
    const t = requestTranslator(request);
    const { filters } = logFilters(request.query, t.timeZone);
    const fingerprint = (rows: DeliveryRowView[]) =>
      rows.map((d) => `${d.id}:${d.status}:${d.attempts}:${d.lastStatusCode}`).join(',');
    // The count is read again only when the rows changed: a still log costs one page read a poll, not a count.
    let counted: { rows: string; count: LogCount } | null = null;
    const read = async () => {
      const endpoints = await endpointsOf(db, store.id);
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      const rows = (await logPage(platform, store.id, filters, undefined)).entries.map((d) => deliveryRowOf(d, byId));
      const print = fingerprint(rows);
      if (counted?.rows !== print) {
        counted = { rows: print, count: { ...(await countStoreDeliveries(db, { tenantId: store.id, filters })), at: 0 } };
      }
      return { rows, count: counted.count };
    };
    kit.liveRegion(request, reply, {
      event: 'deliveries',
      first: await read(),
      read,
      fingerprint: ({ rows }) => fingerprint(rows),
      render: ({ rows, count }) => ({ html: deliveriesRegion(t, store.id, rows, count) }),
    });
  };
}

export const webhooksSection: ConsoleSection = {
  name: 'webhooks',
  nav: { slug: 'webhooks', label: 'console.nav.webhooks' },
  routes: webhooksRoutes,
};
