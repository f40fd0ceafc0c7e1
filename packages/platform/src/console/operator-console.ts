import type { ListEnvelopeOf } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import {
  clientListQuery,
  createSeller,
  findPublicClientById,
  findSellerById,
  listTenantsOfSellers,
  sellerListQuery,
} from '../accounts/index.js';
import { addStore, deleteClient, deleteSeller, deleteStore, renameStore, updateSeller } from '../admin/account-changes.js';
import { clientList, sellerList } from '../admin/admin-lists.js';
import { MAX_CLOCK_STEP_MS } from '../admin/clock-routes.js';
import { durationMs } from '../core/duration.js';
import { PlatformError } from '../core/platform-error.js';
import type { PageOptions } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { runList } from '../lists/list-engine.js';
import { outboxEventsInWindow } from '../records/index.js';
import { quoteLatenciesSince } from '../shipping/index.js';
import { deliveriesInWindow, deliveryAttemptsSince } from '../webhooks/index.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import { serveAsset } from './console-assets.js';
import { type ConsoleKit, refusalText as translatedRefusal, withNotice } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { operatorKeyRoutes } from './keys-console.js';
import { operatorRateLimitRoutes, rateLimitText } from './operator-rate-limit.js';
import { isOperator, signInOperator, signOutOperator } from './operator-session.js';
import { accountsView, type HealthPoint, healthView, operatorSignInView, sellerView } from './operator-views.js';

/** The health charts read at most this many rows of each source over the hour (a busy platform makes more). */
const HEALTH_ROW_LIMIT = 50_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

function field(body: unknown, name: string, max: number): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

/** A refusal's text for the page, in its language: the field by its form label, what is wrong by the detail's slug. */
function refusalText(t: Translator, error: unknown): string | null {
  if (!(error instanceof PlatformError)) return null;
  const labels: Record<string, () => string> = {
    login: () => t.text('login.login'),
    name: () => t.text('operator.seller.name'),
    password: () => t.text('login.password'),
  };
  return translatedRefusal(t, error, (field) => labels[field]?.() ?? field);
}

/** Rows per page of the operator's lists of sellers and of apps. */
const OPERATOR_PAGE = 50;

/** The search box's words as a case-insensitive contains pattern on name or login (% and _ literal, as the list engine's like). */
function searchPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * The operator console at `/console/operator`: signed in with the
 * admin token turned into an operator session (operator-session.ts), it
 * creates, edits and deletes sellers, adds and renames stores, sets client
 * apps' API rate limits (operator-rate-limit.ts) and deletes them (admin/account-changes.ts states what happens to tokens and
 * subscriptions), and charts the platform's health over the last hour from its
 * own tables. A seller's session never reaches it.
 */
async function operatorConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const platform = app.platform;
  const { db } = platform.database;
  const deps = { clock: platform.clock, random: platform.random };

  function page(
    request: FastifyRequest,
    reply: FastifyReply,
    t: Translator,
    signedIn: boolean,
    options: Omit<PageOptions, 't' | 'chrome'>,
  ) {
    return kit.frame(
      request,
      reply,
      t,
      {
        name: signedIn ? t.text('operator.who') : null,
        signOutAction: '/console/operator/logout',
        home: { href: '/console/operator', label: t.text('operator.name') },
      },
      options,
    );
  }

  function signInPage(request: FastifyRequest, reply: FastifyReply, status = 200, error: string | null = null) {
    const t = requestTranslator(request);
    return page(request, reply, t, false, {
      status,
      title: t.text('operator.signin.title'),
      body: operatorSignInView(t, { csrf: kit.csrfToken(request, reply), error }),
    });
  }

  /** The operator check of every page and action: the sign-in page (401) otherwise; a bad CSRF token sends back. */
  async function guard(request: FastifyRequest, reply: FastifyReply, back: string): Promise<boolean> {
    if (!(await isOperator(request))) {
      signInPage(request, reply, 401);
      return false;
    }
    if (request.method === 'POST' && !csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf)) {
      // Nothing changed: the page says so (D69).
      kit.seeOther(reply, withNotice(back, 'expired'));
      return false;
    }
    return true;
  }

  async function accountsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: {
      status?: number;
      message?: string | null;
      error?: string | null;
      form?: { name?: string; login?: string; store?: string };
    } = {},
  ) {
    const t = requestTranslator(request);
    const query = (request.query ?? {}) as Record<string, string | undefined>;
    const q = (query.q ?? '').trim().slice(0, 200);
    const offsetOf = (raw: string | undefined) => (/^[0-9]{1,6}$/.test(raw ?? '') ? Number(raw) : 0);
    const sellersOffset = offsetOf(query.sellers_offset);
    const clientsOffset = offsetOf(query.clients_offset);
    const pattern = searchPattern(q);
    const listOf = (offset: number) => ({
      query: { _sort: 'created_at:desc', _limit: String(OPERATOR_PAGE), _offset: String(offset) },
      url: '/console/operator',
    });
    const sellersBase = q
      ? sellerListQuery(db).where((eb) =>
          eb.or([
            sql<boolean>`lower(name) like lower(${pattern}) escape '\\'`,
            sql<boolean>`lower(login) like lower(${pattern}) escape '\\'`,
          ]),
        )
      : sellerListQuery(db);
    const clientsBase = q
      ? clientListQuery(db).where((eb) =>
          eb.or([
            sql<boolean>`lower(name) like lower(${pattern}) escape '\\'`,
            sql<boolean>`lower(id) like lower(${pattern}) escape '\\'`,
          ]),
        )
      : clientListQuery(db);
    const [sellerPage, clientPage] = (await Promise.all([
      runList(sellerList, sellersBase as never, listOf(sellersOffset), platform.config),
      runList(clientList, clientsBase as never, listOf(clientsOffset), platform.config),
    ])) as [
      ListEnvelopeOf<{ id: string; name: string; login: string; created_at: string }>,
      ListEnvelopeOf<{
        id: string;
        name: string;
        created_at: string;
        rate_limit_per_second: number | null;
        rate_limit_burst: number | null;
      }>,
    ];
    const sellers = sellerPage.results.map((s) => ({ id: s.id, name: s.name, login: s.login, createdAt: s.created_at }));
    const clients = clientPage.results.map((c) => ({
      id: c.id,
      name: c.name,
      createdAt: c.created_at,
      rateLimit: rateLimitText(
        t,
        c.rate_limit_per_second !== null && c.rate_limit_burst !== null
          ? { requestsPerSecond: Number(c.rate_limit_per_second), burst: Number(c.rate_limit_burst) }
          : null,
        platform.config.apiRateLimit,
      ),
    }));
    const stores = await listTenantsOfSellers(
      db,
      sellers.map((s) => s.id),
    );
    return page(request, reply, t, true, {
      status: extra.status ?? 200,
      title: t.text('operator.accounts.title'),
      body: accountsView(t, {
        csrf: kit.csrfToken(request, reply),
        sellers: sellers.map((s) => ({
          id: s.id,
          name: s.name,
          login: s.login,
          stores: stores.get(s.id)?.length ?? 0,
          createdAt: s.createdAt,
        })),
        clients,
        search: q,
        paging: {
          sellers: { offset: sellersOffset, total: sellerPage.meta.total ?? sellers.length },
          clients: { offset: clientsOffset, total: clientPage.meta.total ?? clients.length },
          size: OPERATOR_PAGE,
        },
        message: extra.message ?? null,
        error: extra.error ?? null,
        form: extra.form ?? {},
      }),
    });
  }

  async function sellerPage(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { status?: number; message?: string | null; error?: string | null } = {},
  ) {
    const t = requestTranslator(request);
    const seller = await findSellerById(db, id);
    if (!seller) {
      return page(request, reply, t, true, {
        status: 404,
        title: t.text('console.notFound.title'),
        body: `<h1>${t.html('console.notFound.title')}</h1><p><a href="/console/operator">${t.html('console.back', { place: t.text('operator.accounts.title') })}</a></p>`,
      });
    }
    return page(request, reply, t, true, {
      status: extra.status ?? 200,
      title: t.text('operator.seller.title', { name: seller.name }),
      body: sellerView(t, {
        csrf: kit.csrfToken(request, reply),
        seller: { id: seller.id, name: seller.name, login: seller.login, tenants: seller.tenants },
        message: extra.message ?? null,
        error: extra.error ?? null,
      }),
    });
  }

  const operatorPageKit = {
    guard,
    page,
    seeOther: (reply: FastifyReply, location: string) => kit.seeOther(reply, location),
    csrfToken: (request: FastifyRequest, reply: FastifyReply) => kit.csrfToken(request, reply),
  };
  operatorRateLimitRoutes(app, operatorPageKit);
  operatorKeyRoutes(app, operatorPageKit);

  serveAsset(app, '/console/assets/health.js', 'text/javascript', HEALTH_JS);

  app.get('/console/operator', { schema: { hide: true } }, async (request, reply) => {
    if (!(await isOperator(request))) return signInPage(request, reply);
    const t = requestTranslator(request);
    const query = request.query as Record<string, string | undefined>;
    const message =
      query.deleted !== undefined
        ? t.text('operator.seller.deleted', { name: query.deleted.slice(0, 200) })
        : query.clientDeleted !== undefined
          ? t.text('operator.client.deleted', { app: query.clientDeleted.slice(0, 200) })
          : query.storeDeleted !== undefined
            ? t.text('notice.storeDeleted', { store: query.storeDeleted.slice(0, 200) })
            : null;
    return accountsPage(request, reply, { message });
  });

  app.post('/console/operator/login', { schema: { hide: true } }, async (request, reply) => {
    const t = requestTranslator(request);
    if (!csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf)) {
      return signInPage(request, reply, 403, t.text('login.error.expired'));
    }
    const result = await signInOperator(request, reply, field(request.body, 'token', 1024));
    if (result.kind === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      return signInPage(request, reply, 429, t.text('login.error.throttled', { seconds: result.retryAfterSeconds }));
    }
    if (result.kind === 'wrong') return signInPage(request, reply, 401, t.text('operator.signin.wrong'));
    return kit.seeOther(reply, '/console/operator');
  });

  app.post('/console/operator/logout', { schema: { hide: true } }, async (request, reply) => {
    if (csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf))
      await signOutOperator(request, reply);
    return kit.seeOther(reply, '/console/operator');
  });

  app.post('/console/operator/sellers', { schema: { hide: true } }, async (request, reply) => {
    if (!(await guard(request, reply, '/console/operator'))) return reply;
    const t = requestTranslator(request);
    const form = {
      name: field(request.body, 'name', 200),
      login: field(request.body, 'login', 320),
      store: field(request.body, 'store', 200),
    };
    const password =
      typeof (request.body as Record<string, unknown>)?.password === 'string'
        ? ((request.body as Record<string, string>).password as string)
        : '';
    if (!form.name || !form.login || !form.store || password.length < 8 || password.length > 1024) {
      return accountsPage(request, reply, { status: 422, error: t.text('operator.seller.invalid'), form });
    }
    try {
      const seller = await createSeller(
        db,
        { name: form.name, login: form.login, password, tenants: [{ name: form.store }] },
        deps,
      );
      return kit.seeOther(reply, `/console/operator/sellers/${encodeURIComponent(seller.id)}?created=1`);
    } catch (error) {
      const text = refusalText(requestTranslator(request), error);
      if (!text) throw error;
      return accountsPage(request, reply, { status: (error as PlatformError).statusCode, error: text, form });
    }
  });

  const SellerParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
  const StoreParams = Type.Object({
    id: Type.String({ minLength: 1, maxLength: 64 }),
    tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
    '/console/operator/sellers/:id',
    { schema: { hide: true, params: SellerParams } },
    async (request, reply) => {
      if (!(await guard(request, reply, '/console/operator'))) return reply;
      const t = requestTranslator(request);
      const q = request.query;
      const message = q.created
        ? t.text('operator.seller.created')
        : q.saved
          ? t.text('operator.seller.saved', { sessions: Number(q.saved) || 0 })
          : q.stores
            ? t.text('operator.store.saved')
            : q.storeDeleted !== undefined
              ? t.text('notice.storeDeleted', { store: q.storeDeleted.slice(0, 200) })
              : null;
      return sellerPage(request, reply, request.params.id, { message });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/console/operator/sellers/:id',
    { schema: { hide: true, params: SellerParams } },
    async (request, reply) => {
      const back = `/console/operator/sellers/${encodeURIComponent(request.params.id)}`;
      if (!(await guard(request, reply, back))) return reply;
      const t = requestTranslator(request);
      const name = field(request.body, 'name', 200);
      const login = field(request.body, 'login', 320);
      const raw = (request.body as Record<string, unknown>)?.password;
      const password = typeof raw === 'string' && raw.length > 0 ? raw : undefined;
      if (!name || !login || (password !== undefined && (password.length < 8 || password.length > 1024))) {
        return sellerPage(request, reply, request.params.id, { status: 422, error: t.text('operator.seller.invalid') });
      }
      try {
        const { endedSessions } = await updateSeller(
          db,
          request.params.id,
          { name, login, ...(password ? { password } : {}) },
          deps,
        );
        return kit.seeOther(reply, `${back}?saved=${password ? String(endedSessions) : '0'}`);
      } catch (error) {
        const text = refusalText(requestTranslator(request), error);
        if (!text) throw error;
        return sellerPage(request, reply, request.params.id, { status: (error as PlatformError).statusCode, error: text });
      }
    },
  );

  app.post<{ Params: { id: string } }>(
    '/console/operator/sellers/:id/delete',
    { schema: { hide: true, params: SellerParams } },
    async (request, reply) => {
      const back = `/console/operator/sellers/${encodeURIComponent(request.params.id)}`;
      if (!(await guard(request, reply, back))) return reply;
      const t = requestTranslator(request);
      const seller = await findSellerById(db, request.params.id);
      if (!seller) return sellerPage(request, reply, request.params.id);
      // Typing the login confirms which account goes: the deletion cannot be undone.
      if (field(request.body, 'confirm', 320) !== seller.login) {
        return sellerPage(request, reply, seller.id, { status: 422, error: t.text('operator.seller.confirmWrong') });
      }
      await deleteSeller(platform.database, seller.id, platform.clock.now());
      return kit.seeOther(reply, `/console/operator?deleted=${encodeURIComponent(seller.name)}`);
    },
  );

  /** Adding or renaming a store: the same guard, the same name rule, back to the seller's page. */
  async function storeChange(
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    change: (name: string) => Promise<unknown>,
  ) {
    const back = `/console/operator/sellers/${encodeURIComponent(request.params.id)}`;
    if (!(await guard(request, reply, back))) return reply;
    const name = field(request.body, 'name', 200);
    if (!name) {
      const error = requestTranslator(request).text('operator.store.invalid');
      return sellerPage(request, reply, request.params.id, { status: 422, error });
    }
    await change(name);
    return kit.seeOther(reply, `${back}?stores=1`);
  }

  app.post<{ Params: { id: string } }>(
    '/console/operator/sellers/:id/stores',
    { schema: { hide: true, params: SellerParams } },
    (request, reply) => storeChange(request, reply, (name) => addStore(db, request.params.id, name, deps)),
  );

  app.post<{ Params: { id: string; tenantId: string } }>(
    '/console/operator/sellers/:id/stores/:tenantId',
    { schema: { hide: true, params: StoreParams } },
    (request, reply) => storeChange(request, reply, (name) => renameStore(db, request.params.id, request.params.tenantId, name)),
  );

  app.post<{ Params: { id: string; tenantId: string } }>(
    '/console/operator/sellers/:id/stores/:tenantId/delete',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const back = `/console/operator/sellers/${encodeURIComponent(request.params.id)}`;
      if (!(await guard(request, reply, back))) return reply;
      const seller = await findSellerById(db, request.params.id);
      const store = seller?.tenants.find((tenant) => tenant.id === request.params.tenantId);
      if (!seller || !store) return sellerPage(request, reply, request.params.id, { status: 404 });
      const t = requestTranslator(request);
      if (!isConfirmed(request.body)) {
        return page(request, reply, t, true, {
          title: t.text('confirm.title'),
          body: confirmationView(t, {
            confirm: {
              question: t.text('confirm.deleteStore.question', { store: store.name }),
              effect: t.text('confirm.deleteStore.effect'),
              yes: t.text('confirm.deleteStore.yes'),
              danger: true,
            },
            action: `${back}/stores/${encodeURIComponent(store.id)}/delete`,
            csrf: kit.csrfToken(request, reply),
            back,
          }),
        });
      }
      await deleteStore(platform.database, seller.id, store.id);
      return kit.seeOther(reply, `${back}?storeDeleted=${encodeURIComponent(store.name)}`);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/console/operator/clients/:id/delete',
    { schema: { hide: true, params: SellerParams } },
    async (request, reply) => {
      if (!(await guard(request, reply, '/console/operator'))) return reply;
      const client = await findPublicClientById(db, request.params.id);
      if (!client) return kit.seeOther(reply, '/console/operator');
      if (!isConfirmed(request.body)) {
        // Without JavaScript the button lands here: the same question as the dialog, on a page (D69).
        const t = requestTranslator(request);
        return page(request, reply, t, true, {
          title: t.text('confirm.title'),
          body: confirmationView(t, {
            confirm: {
              question: t.text('confirm.deleteClient.question', { app: client.name }),
              effect: t.text('operator.client.deleteEffect'),
              yes: t.text('confirm.deleteClient.yes'),
              danger: true,
            },
            action: `/console/operator/clients/${encodeURIComponent(client.id)}/delete`,
            csrf: kit.csrfToken(request, reply),
            back: '/console/operator#clients',
          }),
        });
      }
      await deleteClient(db, client.id, platform.clock.now());
      return kit.seeOther(reply, `/console/operator?clientDeleted=${encodeURIComponent(client.name)}`);
    },
  );

  async function healthPage(request: FastifyRequest, reply: FastifyReply, clockNote: { message?: string; error?: string } = {}) {
    const t = requestTranslator(request);
    const sandboxClock = platform.sandboxClock;
    // Another process may have moved the sandbox clock since this one last read it.
    await sandboxClock?.refresh();
    const { points, truncated } = await healthOverHour(app, platform.clock.now());
    const clock = sandboxClock && {
      now: sandboxClock.now(),
      offsetSeconds: sandboxClock.offsetMs / 1000,
      csrf: kit.csrfToken(request, reply),
      message: clockNote.message ?? null,
      error: clockNote.error ?? null,
    };
    return page(request, reply, t, true, {
      ...(clockNote.error ? { status: 422 } : {}),
      title: t.text('health.title'),
      scripts: ['/console/assets/health.js'],
      styles: ['/console/assets/uplot.css'],
      body: healthView(t, { points, truncated, ...(clock ? { clock } : {}) }),
    });
  }

  app.get('/console/operator/health', { schema: { hide: true } }, async (request, reply) => {
    if (!(await guard(request, reply, '/console/operator'))) return reply;
    const moved = (request.query as Record<string, string | undefined>).clock;
    const t = requestTranslator(request);
    return healthPage(request, reply, moved === '1' ? { message: t.text('operator.clock.moved') } : {});
  });

  // The sandbox clock (storage/sandbox-clock.ts), as POST /admin/v1/clock/advance moves it; sandbox mode only.
  app.post('/console/operator/clock', { schema: { hide: true } }, async (request, reply) => {
    if (!(await guard(request, reply, '/console/operator/health'))) return reply;
    const t = requestTranslator(request);
    const sandboxClock = platform.sandboxClock;
    if (!sandboxClock) throw new PlatformError('FORBIDDEN', { message: t.text('operator.clock.sandboxOnly') });
    const ms = durationMs(field(request.body, 'duration', 40));
    if (ms === null || ms < 1000 || ms > MAX_CLOCK_STEP_MS)
      return healthPage(request, reply, { error: t.text('operator.clock.invalid') });
    await sandboxClock.advance(ms);
    return kit.seeOther(reply, '/console/operator/health?clock=1#clock');
  });
}

/**
 * Minute by minute over the last hour, from the platform's own tables: work
 * waiting (events not yet fanned out and deliveries not yet finished) and the
 * age of the oldest, delivery attempts by outcome, and quote latency p50/p99
 * across stores. Each source is read newest first, at most
 * {@link HEALTH_ROW_LIMIT} rows.
 */
export async function healthOverHour(app: FastifyInstance, now: Date): Promise<{ points: HealthPoint[]; truncated: boolean }> {
  const { db } = app.platform.database;
  const end = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const start = end - HOUR_MS;
  const startIso = new Date(start).toISOString();
  await app.shipping.quoteLog.flush();
  const log = await app.shipping.quoteLog.store.reader();
  const [events, deliveries, attempts, quotes] = await Promise.all([
    outboxEventsInWindow(db, startIso, HEALTH_ROW_LIMIT),
    deliveriesInWindow(db, startIso, HEALTH_ROW_LIMIT),
    deliveryAttemptsSince(db, startIso, HEALTH_ROW_LIMIT),
    quoteLatenciesSince(log, startIso, HEALTH_ROW_LIMIT),
  ]);
  const truncated = [events, deliveries, attempts, quotes].some((rows) => rows.length >= HEALTH_ROW_LIMIT);
  // When each piece of work was waiting: [from, until) in ms; until is Infinity while it still waits.
  const waiting: Array<[number, number]> = [
    ...events.map((e): [number, number] => [
      Date.parse(e.created_at),
      e.dispatched_at ? Date.parse(e.dispatched_at) : Number.POSITIVE_INFINITY,
    ]),
    ...deliveries.map((d): [number, number] => [
      Date.parse(d.created_at),
      d.state === 'pending' ? Number.POSITIVE_INFINITY : Date.parse(d.delivered_at ?? d.updated_at),
    ]),
  ];
  const count = HOUR_MS / MINUTE_MS;
  const succeeded = new Array<number>(count).fill(0);
  const failed = new Array<number>(count).fill(0);
  for (const a of attempts) {
    const i = Math.floor((Date.parse(a.started_at) - start) / MINUTE_MS);
    if (i < 0 || i >= count) continue;
    if (a.outcome === 'succeeded') succeeded[i] = (succeeded[i] ?? 0) + 1;
    else failed[i] = (failed[i] ?? 0) + 1;
  }
  const latencies: number[][] = Array.from({ length: count }, () => []);
  for (const q of quotes) {
    const i = Math.floor((Date.parse(q.created_at) - start) / MINUTE_MS);
    if (i >= 0 && i < count) latencies[i]?.push(Number(q.latency_ms));
  }
  const points: HealthPoint[] = [];
  for (let i = 0; i < count; i++) {
    const at = Math.min(start + (i + 1) * MINUTE_MS, now.getTime());
    let backlog = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [from, until] of waiting) {
      if (from <= at && until > at) {
        backlog += 1;
        if (from < oldest) oldest = from;
      }
    }
    const sorted = (latencies[i] ?? []).sort((a, b) => a - b);
    points.push({
      start: new Date(start + i * MINUTE_MS).toISOString(),
      backlog,
      oldestPendingSeconds: backlog > 0 ? Math.round((at - oldest) / 1000) : null,
      succeeded: succeeded[i] ?? 0,
      failed: failed[i] ?? 0,
      quoteP50Ms: percentile(sorted, 50),
      quoteP99Ms: percentile(sorted, 99),
    });
  }
  return { points, truncated };
}

/** The health page's module: four small uPlot charts from the page's JSON data block (the table has the same figures). */
const HEALTH_JS = `import { drawCharts } from './charts.js';
const data = document.getElementById('health-data');
const host = document.getElementById('health-chart');
if (data && host) {
  const points = JSON.parse(data.textContent);
  const labels = JSON.parse(host.getAttribute('data-labels'));
  const x = points.map((p) => Date.parse(p.start) / 1000);
  const line = (label, stroke) => ({ label, stroke, width: 2 });
  drawCharts(host, labels, x, [
    { title: labels.backlog, height: 170, series: [line(labels.backlog, '#2563eb')], values: [points.map((p) => p.backlog)] },
    { title: labels.oldest, height: 170, series: [line(labels.oldest, '#d97706')], values: [points.map((p) => p.oldestPendingSeconds)] },
    { title: labels.deliveries, height: 170, series: [line(labels.succeeded, '#16a34a'), line(labels.failed, '#dc2626')],
      values: [points.map((p) => p.succeeded / 60), points.map((p) => p.failed / 60)] },
    { title: labels.quotes, height: 170, unit: 'ms', series: [line('p50', '#2563eb'), line('p99', '#d97706')],
      values: [points.map((p) => p.quoteP50Ms), points.map((p) => p.quoteP99Ms)] },
  ]);
}
`;

export const operatorSection: ConsoleSection = {
  name: 'operator',
  routes: operatorConsoleRoutes,
};
