import { TOPIC_NAMES, TOPICS, type Topic, WebhookSubscriptionDescription } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { Seller } from '../accounts/index.js';
import { clientNamesById } from '../accounts/index.js';
import { DEFAULT_SECRET_REVEAL_REAUTH_SECONDS } from '../core/config.js';
import { PlatformError } from '../core/platform-error.js';
import { StoreParams } from '../http/route-params.js';
import { SECRET_PAGE_ROUTE } from '../http/secret-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import { checkCredentials, csrfTokenValid, currentSession } from '../identity/index.js';
import { outboundPolicyOf } from '../outbound/address-policy.js';
import { appendUndispatchedTestEvent, type RecordKindRegistry } from '../records/index.js';
import {
  checkWebhookUrl,
  queueTestDelivery,
  type StoreSubscriptionDetail,
  setStoreSubscriptionDescription,
  setStoreSubscriptionTopic,
  setStoreSubscriptionUrl,
  signUp,
  storeDeliveryPage,
  storeSubscription,
  storeSubscriptionSecret,
  storeSubscriptions,
  subscriptionAttemptsSince,
} from '../webhooks/index.js';
import { connectedApps } from './connected-apps.js';
import { assetUrl, serveAsset } from './console-assets.js';
import { type ConsoleKit, formBody, storePath, topicLabel } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { exampleChange, isChangeStatus } from './event-catalogue-console.js';
import {
  isWebhookNotice,
  newEndpointView,
  noticeOf,
  revealConfirmView,
  type SubscriptionStats,
  secretView,
  subscriptionView,
} from './webhook-views.js';
import { deliveryRowOf, endpointView } from './webhooks-console.js';

const SubscriptionParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});
type Params = { tenantId: string; id: string };
/** Attempts read for a subscription's 24-hour chart at most. */
const STATS_LIMIT = 5000;

/** The subscriber-URL refusals in the reader's language (the API's 422 keeps its English message). */
const URL_REFUSALS: Array<[RegExp, MessageKey]> = [
  [/absolute URL|http or https/, 'endpoint.error.url'],
  [/HTTPS/, 'endpoint.error.https'],
  [/credentials/, 'endpoint.error.credentials'],
  [/fragment/, 'endpoint.error.fragment'],
  [/refused address/, 'endpoint.error.address'],
];

/** A subscriber URL checked as signup checks it (SSRF guard), or why not in the reader's language. */
export async function checkedUrl(t: Translator, raw: string, version: 'v0' | 'v1', app: FastifyInstance): Promise<URL | string> {
  try {
    return await checkWebhookUrl(raw, version, outboundPolicyOf(app.platform.config));
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    const message = error.details[0]?.message ?? error.message;
    const key = URL_REFUSALS.find(([pattern]) => pattern.test(message))?.[1] ?? 'endpoint.error.url';
    return t.text(key);
  }
}

/** Success rate, latency percentiles and hourly buckets of the last 24 h of attempts. */
function statsOf(attempts: Array<{ started_at: string; outcome: string; duration_ms: number }>, now: Date): SubscriptionStats {
  const hour = 3600 * 1000;
  const end = Math.ceil(now.getTime() / hour) * hour;
  const buckets = Array.from({ length: 24 }, (_, i) => ({ start: end - (24 - i) * hour, ok: 0, failed: 0, ms: [] as number[] }));
  const all: number[] = [];
  let succeeded = 0;
  for (const a of attempts) {
    const at = Date.parse(a.started_at);
    const bucket = buckets[Math.floor((at - (end - 24 * hour)) / hour)];
    const ms = Number(a.duration_ms);
    all.push(ms);
    if (a.outcome === 'succeeded') succeeded += 1;
    if (!bucket) continue;
    if (a.outcome === 'succeeded') bucket.ok += 1;
    else bucket.failed += 1;
    bucket.ms.push(ms);
  }
  const percentile = (values: number[], p: number) => {
    if (values.length === 0) return null;
    const sorted = [...values].sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
  };
  return {
    attempts: attempts.length,
    succeeded,
    p50Ms: percentile(all, 50),
    p95Ms: percentile(all, 95),
    buckets: buckets.map((b) => ({
      start: new Date(b.start).toISOString(),
      ok: b.ok,
      failed: b.failed,
      p50Ms: percentile(b.ms, 50),
    })),
  };
}

type Platform = FastifyInstance['platform'];

/**
 * A subscription's own page (D66): what it is, its recent deliveries, its
 * success rate and latency over 24 h (chart and table), a test event, the
 * current secret behind a confirmation, and its URL to edit (SSRF guard as
 * at signup); plus adding an endpoint for a connected app.
 */
async function subscriptionRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const platform = app.platform;
  serveAsset(app, '/console/assets/webhooks.js', 'text/javascript', WEBHOOKS_JS);
  app.get<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id',
    subscriptionOptions(),
    showSubscription(platform, kit),
  );
  app.post<{ Params: Params }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/test',
    subscriptionOptions(),
    sendTestEvent(platform, kit, app.recordKinds),
  );
  app.post<{ Params: Params }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/reveal',
    revealSecretOptions(),
    revealSecret(platform, kit),
  );
  app.get<{ Params: Params; Querystring: { rotated?: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/secret',
    subscriptionOptions(),
    secretConfirmation(platform, kit),
  );
  app.post<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/url',
    subscriptionOptions(),
    saveSubscriptionUrl(app, kit),
  );
  app.post<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/description',
    subscriptionOptions(),
    saveSubscriptionDescription(platform, kit),
  );
  app.post<{ Params: Params; Querystring: { done?: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/:id/topic',
    subscriptionOptions(),
    saveSubscriptionTopic(platform, kit),
  );
  app.get<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/new',
    storeOptions(),
    newEndpointForm(platform, kit),
  );
  app.post<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/webhooks/subscriptions/new',
    storeOptions(),
    createEndpoint(app, kit),
  );
}

/** A console page or form of one of a store's subscriptions (kept out of the OpenAPI document). */
function subscriptionOptions(): RouteShorthandOptions {
  return { schema: { hide: true, params: SubscriptionParams } };
}

/** A console page or form of one store (kept out of the OpenAPI document). */
function storeOptions(): RouteShorthandOptions {
  return { schema: { hide: true, params: StoreParams } };
}

/** The subscription's page, with the refusal of an edit when one is shown. */
async function subscriptionPage(
  platform: Platform,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
  reply: FastifyReply,
  edit: {
    status: number;
    urlError?: string | null;
    urlValue?: string | null;
    topicError?: string | null;
    descriptionError?: string | null;
    descriptionValue?: string;
  } = { status: 200 },
) {
  const { db } = platform.database;
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return reply;
  const sub = await storeSubscription(db, found.store.id, request.params.id);
  if (!sub) return kit.notFoundPage(request, reply, found.seller);
  const t = requestTranslator(request);
  const now = platform.clock.now();
  const appName = (await clientNamesById(db, [sub.client_id])).get(sub.client_id) ?? sub.client_id;
  const view = endpointView(sub, appName);
  const [page, attempts] = await Promise.all([
    storeDeliveryPage(db, platform.config, { tenantId: found.store.id, filters: { subscriptionId: sub.id }, limit: 10 }),
    subscriptionAttemptsSince(db, sub.id, new Date(now.getTime() - 24 * 3600 * 1000).toISOString(), STATS_LIMIT),
  ]);
  const hasQuery = hasQueryOrCredentials(sub.url);
  return kit.page(request, reply.code(edit.status), t, found.seller, {
    status: edit.status,
    title: t.text('subscription.title', { topic: topicLabel(t, sub.topic), app: appName }),
    scripts: ['/console/assets/webhooks.js'],
    styles: ['/console/assets/uplot.css'],
    body: subscriptionView(t, {
      store: found.store,
      subscription: { ...view, createdAt: sub.created_at, rawUrlHasQuery: hasQuery },
      catalogue: storePath(found.store.id, '/webhooks/events'),
      deliveries: page.entries.map((d) => deliveryRowOf(d, new Map([[sub.id, view]]))),
      stats: statsOf(attempts, now),
      csrf: kit.csrfToken(request, reply),
      now,
      ...subscriptionNotices(t, request.query.done),
      urlError: edit.urlError ?? null,
      urlValue: edit.urlValue ?? (hasQuery ? '' : sub.url),
      topics: TOPIC_NAMES,
      topicError: edit.topicError ?? null,
      descriptionError: edit.descriptionError ?? null,
      descriptionValue: edit.descriptionValue ?? sub.description ?? '',
      chartsModule: assetUrl('/console/assets/charts.js'),
    }),
  });
}

/** GET of the subscription's page. */
function showSubscription(platform: Platform, kit: ConsoleKit) {
  return function showSubscription(
    request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
    reply: FastifyReply,
  ) {
    return subscriptionPage(platform, kit, request, reply);
  };
}

/** The store's subscription of a POST, after the CSRF check; a reply already sent otherwise. */
async function postedSubscription(
  platform: Platform,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
): Promise<{
  found: NonNullable<Awaited<ReturnType<ConsoleKit['storeOf']>>>;
  sub: StoreSubscriptionDetail;
  page: string;
} | null> {
  const { db } = platform.database;
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return null;
  const page = storePath(found.store.id, `/webhooks/subscriptions/${encodeURIComponent(request.params.id)}`);
  if (!csrfTokenValid(request, formBody(request).csrf)) {
    kit.seeOther(reply, `${page}?done=expired`);
    return null;
  }
  const sub = await storeSubscription(db, found.store.id, request.params.id);
  if (!sub) {
    kit.notFoundPage(request, reply, found.seller);
    return null;
  }
  return { found, sub, page };
}

/**
 * A test event (D66): the catalogue's example of the event type the seller chose
 * (D153), for a record no store has, sent to this subscription only, signed as
 * any, and marked as a test in the log.
 */
function sendTestEvent(platform: Platform, kit: ConsoleKit, registry: Pick<RecordKindRegistry, 'findByTopic'>) {
  const { db } = platform.database;
  return async function sendTestEvent(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const posted = await postedSubscription(platform, kit, request, reply);
    if (!posted) return reply;
    const { sub } = posted;
    // A form from before the choice existed sends none: the update it always sent.
    const status = formBody(request).status ?? 'UPDATE';
    const kind = registry.findByTopic(sub.topic);
    if (!isChangeStatus(status) || !kind) return kit.seeOther(reply, `${posted.page}?done=badEvent`);
    const now = platform.clock.now();
    await db.transaction().execute(async (trx) => {
      const event = await appendUndispatchedTestEvent(trx, exampleChange(kind, status, sub.tenant_id), platform);
      await queueTestDelivery(trx, { event, subscriptionId: sub.id, tenantId: sub.tenant_id }, now);
    });
    platform.database.outboxSignal.notify();
    return kit.seeOther(reply, `${posted.page}?done=testSent#deliveries`);
  };
}

/**
 * A posted description held to the contract's bounds (D154), spaces around it
 * dropped: null for none (an empty field clears it), undefined when refused.
 */
function postedDescription(raw: unknown): string | null | undefined {
  if (raw === undefined) return null;
  if (typeof raw !== 'string') return undefined;
  const value = raw.trim();
  if (value === '') return null;
  return Value.Check(WebhookSubscriptionDescription, value) ? value : undefined;
}

/** The subscription's description (D154): the seller's note, bounded and shown escaped. */
function saveSubscriptionDescription(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function saveSubscriptionDescription(
    request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
    reply: FastifyReply,
  ) {
    const posted = await postedSubscription(platform, kit, request, reply);
    if (!posted) return reply;
    const raw = formBody(request).description;
    const description = postedDescription(raw);
    if (description === undefined) {
      const t = requestTranslator(request);
      return subscriptionPage(platform, kit, request, reply, {
        status: 422,
        descriptionError: t.text('subscription.description.error'),
        descriptionValue: typeof raw === 'string' ? raw.slice(0, 1000) : '',
      });
    }
    await setStoreSubscriptionDescription(
      db,
      { tenantId: posted.sub.tenant_id, id: posted.sub.id, description },
      platform.clock.now(),
    );
    return kit.seeOther(reply, `${posted.page}?done=descriptionSaved`);
  };
}

/** How long a sign-in lets a secret be shown without the password again (D98). */
function reauthWindowSecondsOf(platform: Platform): number {
  return platform.config.secretRevealReauthSeconds ?? DEFAULT_SECRET_REVEAL_REAUTH_SECONDS;
}

/**
 * The confirmation a secret is shown behind (D98): GET /secret answers it, and
 * so does a reveal POST without `confirmed`, or without the password once the
 * re-authentication window is over. It never holds the secret.
 */
function revealForm(
  platform: Platform,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  input: { seller: Seller; page: string; rotated: boolean; reauth: boolean; status: number; error: string | null },
) {
  const reauthWindowSeconds = reauthWindowSecondsOf(platform);
  const t = requestTranslator(request);
  return kit.page(request, reply.code(input.status), t, input.seller, {
    status: input.status,
    title: t.text(input.rotated ? 'rotated.ready' : 'subscription.confirm.reveal'),
    body: revealConfirmView(t, {
      action: `${input.page}/reveal`,
      csrf: kit.csrfToken(request, reply),
      back: input.page,
      rotated: input.rotated,
      reauthMinutes: input.reauth ? Math.max(1, Math.floor(reauthWindowSeconds / 60)) : null,
      error: input.error,
    }),
  });
}

/** Whether the session's sign-in is older than the re-authentication window (D98), by the injected clock. */
async function reauthNeeded(platform: Platform, request: FastifyRequest): Promise<boolean> {
  const reauthWindowSeconds = reauthWindowSecondsOf(platform);
  const session = await currentSession(request);
  if (!session) return true;
  const age = platform.clock.now().getTime() - Date.parse(session.startedAt);
  return age > reauthWindowSeconds * 1000;
}

/** POST of a secret's reveal: never compressed, never stored (a secret page). */
function revealSecretOptions(): RouteShorthandOptions {
  return { schema: { hide: true, params: SubscriptionParams }, ...SECRET_PAGE_ROUTE };
}

/**
 * The secret is shown only in the answer to this POST (D98): confirmed, CSRF-checked, with the password
 * again when the sign-in is older than the window; never compressed, never stored, nothing reflected.
 */
function revealSecret(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function revealSecret(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const posted = await postedSubscription(platform, kit, request, reply);
    if (!posted) return reply;
    const { found, sub, page } = posted;
    const body = formBody(request);
    const rotated = body.rotated === '1';
    const reauth = await reauthNeeded(platform, request);
    const form = (status: number, error: string | null) =>
      revealForm(platform, kit, request, reply, { seller: found.seller, page, rotated, reauth, status, error });
    if (body.confirmed !== '1') return form(200, null);
    const t = requestTranslator(request);
    if (reauth) {
      // Coming from the dialog (no password field yet): the form, asking; an empty one posted: say what is missing.
      if (body.password === undefined) return form(401, null);
      const password = typeof body.password === 'string' ? body.password : '';
      if (!password || password.length > 1024) return form(422, t.text('secret.reauth.missing'));
      // The sign-in's own check: the same throttle counts a wrong password here as a failed sign-in.
      const checked = await checkCredentials(request.server.identity, {
        login: found.seller.login,
        password,
        address: request.ip,
      });
      if (checked.kind === 'wrong') return form(401, t.text('secret.reauth.wrong'));
      if (checked.kind !== 'ok') {
        reply.header('retry-after', String(checked.retryAfterSeconds));
        return form(
          429,
          checked.kind === 'busy'
            ? t.text('login.error.busy')
            : t.text('login.error.throttled', { seconds: checked.retryAfterSeconds }),
        );
      }
      if (checked.seller.id !== found.seller.id) return form(401, t.text('secret.reauth.wrong'));
    }
    const secret = await storeSubscriptionSecret(db, { tenantId: found.store.id, id: sub.id }, platform.box);
    if (!secret) return kit.notFoundPage(request, reply, found.seller);
    const appName = (await clientNamesById(db, [sub.client_id])).get(sub.client_id) ?? sub.client_id;
    return kit.secretPage(request, reply, t, found.seller, {
      back: page,
      title: t.text(rotated ? 'rotated.title' : 'secret.title'),
      scripts: ['/console/assets/webhooks.js'],
      body: secretView(t, {
        store: found.store,
        subscription: { id: sub.id, topic: sub.topic, appName },
        secret: secret.secret,
        graceUntil: secret.graceUntil,
        rotated,
        now: platform.clock.now(),
      }),
    });
  };
}

/** Where a rotation lands (post/redirect/get, D64) and a bookmark of the secret: the confirmation, never the secret. */
function secretConfirmation(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function secretConfirmation(
    request: FastifyRequest<{ Params: Params; Querystring: { rotated?: string } }>,
    reply: FastifyReply,
  ) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const sub = await storeSubscription(db, found.store.id, request.params.id);
    // A subscription without a secret to show (v0) has no such page, as before.
    const secret = sub ? await storeSubscriptionSecret(db, { tenantId: found.store.id, id: sub.id }, platform.box) : null;
    if (!sub || !secret) return kit.notFoundPage(request, reply, found.seller);
    const page = storePath(found.store.id, `/webhooks/subscriptions/${encodeURIComponent(sub.id)}`);
    reply.header('cache-control', 'no-store');
    return revealForm(platform, kit, request, reply, {
      seller: found.seller,
      page,
      rotated: request.query.rotated === '1',
      reauth: await reauthNeeded(platform, request),
      status: 200,
      error: null,
    });
  };
}

/** The subscription's URL, checked as signup checks it (SSRF guard). */
function saveSubscriptionUrl(app: FastifyInstance, kit: ConsoleKit) {
  const platform = app.platform;
  const { db } = platform.database;
  return async function saveSubscriptionUrl(
    request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
    reply: FastifyReply,
  ) {
    const posted = await postedSubscription(platform, kit, request, reply);
    if (!posted) return reply;
    const raw = String(formBody(request).url ?? '')
      .trim()
      .slice(0, 2048);
    const t = requestTranslator(request);
    const checked = raw ? await checkedUrl(t, raw, posted.sub.version, app) : t.text('endpoint.error.url');
    if (typeof checked === 'string')
      return subscriptionPage(platform, kit, request, reply, { status: 422, urlError: checked, urlValue: raw });
    await setStoreSubscriptionUrl(
      db,
      { tenantId: posted.sub.tenant_id, id: posted.sub.id, url: checked.href },
      platform.clock.now(),
    );
    return kit.seeOther(reply, `${posted.page}?done=urlSaved`);
  };
}

/**
 * The subscription's topic (spec-notes W1: one subscription per app, store and topic), checked
 * against the contract's topics and the scopes the seller granted the app, as a new endpoint's are.
 */
function saveSubscriptionTopic(platform: Platform, kit: ConsoleKit) {
  const { db } = platform.database;
  return async function saveSubscriptionTopic(
    request: FastifyRequest<{ Params: Params; Querystring: { done?: string } }>,
    reply: FastifyReply,
  ) {
    const posted = await postedSubscription(platform, kit, request, reply);
    if (!posted) return reply;
    const { found, sub } = posted;
    const t = requestTranslator(request);
    const raw = formBody(request).topic;
    const refuse = (topicError: string) => subscriptionPage(platform, kit, request, reply, { status: 422, topicError });
    if (typeof raw !== 'string' || !(TOPIC_NAMES as readonly string[]).includes(raw))
      return refuse(t.text('subscription.topic.error.unknown'));
    const topic = raw as Topic;
    const granted = (await connectedApps(db, found.seller.id, found.store.id)).find((a) => a.clientId === sub.client_id);
    if (!granted?.scopes.includes(TOPICS[topic].scope)) {
      const appName = granted?.name ?? (await clientNamesById(db, [sub.client_id])).get(sub.client_id) ?? sub.client_id;
      return refuse(t.text('endpoint.error.scope', { app: appName, topics: topicLabel(t, topic) }));
    }
    const saved = await setStoreSubscriptionTopic(db, { tenantId: sub.tenant_id, id: sub.id, topic }, platform.clock.now());
    if (saved === 'missing') return kit.notFoundPage(request, reply, found.seller);
    if (saved === 'exists') return refuse(t.text('endpoint.error.exists', { topics: topicLabel(t, topic) }));
    return kit.seeOther(reply, `${posted.page}?done=topicSaved`);
  };
}

/** The new-endpoint form, with the refusal of a posted one when one is shown. */
async function newEndpointPage(
  platform: Platform,
  kit: ConsoleKit,
  request: FastifyRequest<{ Params: { tenantId: string } }>,
  reply: FastifyReply,
  form: { status: number; error: string | null; values: { app: string; url: string; topics: string[]; description: string } },
) {
  const { db } = platform.database;
  const found = await kit.storeOf(request, reply, request.params.tenantId);
  if (!found) return reply;
  const t = requestTranslator(request);
  const apps = await connectedApps(db, found.seller.id, found.store.id);
  return kit.page(request, reply.code(form.status), t, found.seller, {
    status: form.status,
    title: t.text('endpoint.title'),
    body: newEndpointView(t, {
      store: found.store,
      apps: apps.map((a) => ({ clientId: a.clientId, name: a.name })),
      topics: TOPIC_NAMES,
      csrf: kit.csrfToken(request, reply),
      values: form.values,
      error: form.error,
    }),
  });
}

/** GET of the new-endpoint form, empty. */
function newEndpointForm(platform: Platform, kit: ConsoleKit) {
  return function newEndpointForm(request: FastifyRequest<{ Params: { tenantId: string } }>, reply: FastifyReply) {
    return newEndpointPage(platform, kit, request, reply, {
      status: 200,
      error: null,
      values: { app: '', url: '', topics: [], description: '' },
    });
  };
}

/** An endpoint for a connected app: one subscription per topic chosen, each within the scopes the seller granted. */
function createEndpoint(app: FastifyInstance, kit: ConsoleKit) {
  const platform = app.platform;
  const { db } = platform.database;
  return async function createEndpoint(request: FastifyRequest<{ Params: { tenantId: string } }>, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const back = storePath(found.store.id, '/webhooks');
    const body = formBody(request);
    if (!csrfTokenValid(request, body.csrf)) return kit.seeOther(reply, `${back}/subscriptions/new?done=expired`);
    const t = requestTranslator(request);
    const values = {
      app: typeof body.app === 'string' ? body.app.slice(0, 64) : '',
      url: typeof body.url === 'string' ? body.url.trim().slice(0, 2048) : '',
      topics: (Array.isArray(body.topics) ? body.topics : [body.topics]).filter(
        (topic): topic is Topic => typeof topic === 'string' && (TOPIC_NAMES as readonly string[]).includes(topic),
      ),
      description: typeof body.description === 'string' ? body.description.slice(0, 1000) : '',
    };
    const refuse = (error: string) => newEndpointPage(platform, kit, request, reply, { status: 422, error, values });
    const chosen = (await connectedApps(db, found.seller.id, found.store.id)).find((a) => a.clientId === values.app);
    if (!chosen) return refuse(t.text('endpoint.error.app'));
    if (values.topics.length === 0) return refuse(t.text('endpoint.error.topics'));
    const description = postedDescription(body.description);
    if (description === undefined) return refuse(t.text('subscription.description.error'));
    const unscoped = values.topics.filter((topic) => !chosen.scopes.includes(TOPICS[topic].scope));
    if (unscoped.length > 0)
      return refuse(
        t.text('endpoint.error.scope', { app: chosen.name, topics: unscoped.map((u) => topicLabel(t, u)).join(', ') }),
      );
    const existing = (await storeSubscriptions(db, found.store.id)).filter(
      (s) => s.client_id === chosen.clientId && (values.topics as string[]).includes(s.topic),
    );
    if (existing.length > 0)
      return refuse(t.text('endpoint.error.exists', { topics: existing.map((s) => topicLabel(t, s.topic)).join(', ') }));
    const url = values.url ? await checkedUrl(t, values.url, 'v1', app) : t.text('endpoint.error.url');
    if (typeof url === 'string') return refuse(url);
    const created = await signUp(
      db,
      { clientId: chosen.clientId, tenantId: found.store.id, topics: values.topics, url: url.href, version: 'v1', description },
      platform,
    );
    const first = created[0];
    return kit.seeOther(
      reply,
      first ? `${back}/subscriptions/${encodeURIComponent(first.id)}?done=created` : `${back}?done=created`,
    );
  };
}

/** The page's notice after an action; the test event's sits beside the deliveries, where its redirect lands. */
function subscriptionNotices(t: Translator, done: string | undefined): { notice: string; deliveriesNotice: string } {
  const name = isWebhookNotice(done) ? done : null;
  return name === 'testSent'
    ? { notice: '', deliveriesNotice: noticeOf(t, name) }
    : { notice: noticeOf(t, name), deliveriesNotice: '' };
}

/** True when a URL carries a query or credentials, which pages never show (D65). */
function hasQueryOrCredentials(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.search !== '' || url.username !== '' || url.password !== '';
  } catch {
    return true;
  }
}

/**
 * The webhook pages' module: copy buttons (shown only here: they need the
 * clipboard) and a subscription's 24-hour chart, drawn with the shared chart
 * module in the zone the page names.
 */
const WEBHOOKS_JS = `for (const button of document.querySelectorAll('button.copy[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      const label = button.textContent;
      button.textContent = button.dataset.copied;
      setTimeout(() => { button.textContent = label; }, 2000);
    } catch {}
  });
}
const data = document.getElementById('subscription-stats');
const host = document.getElementById('subscription-chart');
if (data && host) {
  // Loaded only where a chart is drawn: uPlot is most of the console's weight.
  const { drawCharts } = await import(data.dataset.charts);
  const stats = JSON.parse(data.textContent);
  const labels = JSON.parse(host.getAttribute('data-labels'));
  const x = stats.buckets.map((b) => Date.parse(b.start) / 1000);
  drawCharts(host, labels, x, [
    { title: labels.outcomes, height: 180,
      series: [{ label: labels.ok, stroke: '#16a34a', width: 2 }, { label: labels.failed, stroke: '#dc2626', width: 2 }],
      values: [stats.buckets.map((b) => b.ok), stats.buckets.map((b) => b.failed)] },
    { title: labels.latency, height: 180, unit: 'ms',
      series: [{ label: 'p50', stroke: '#2563eb', width: 2 }],
      values: [stats.buckets.map((b) => b.p50Ms)] },
  ]);
}
`;

export const subscriptionSection: ConsoleSection = { name: 'subscription', routes: subscriptionRoutes };
