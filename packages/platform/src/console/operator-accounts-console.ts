import type { ListEnvelopeOf } from '@feira/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { clientListQuery, createSeller, findPublicClientById, listTenantsOfSellers, sellerListQuery } from '../accounts/index.js';
import { deleteClient } from '../admin/account-changes.js';
import { clientList, sellerList } from '../admin/admin-lists.js';
import type { PlatformError } from '../core/platform-error.js';
import { requestTranslator } from '../i18n/i18n.js';
import { runList } from '../lists/list-engine.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import type { ConsoleKit } from './console-kit.js';
import { field, type OperatorFrame, refusalText } from './operator-frame.js';
import { rateLimitText } from './operator-rate-limit.js';
import { isOperator } from './operator-session.js';
import { foundForOperator } from './operator-store-console.js';
import { accountsView } from './operator-views.js';

/** Rows per page of the operator's lists of sellers and of apps. */
const OPERATOR_PAGE = 50;

/** The search box's words as a case-insensitive contains pattern on name or login (% and _ literal, as the list engine's like). */
function searchPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

type AccountsPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  extra?: {
    status?: number;
    message?: string | null;
    error?: string | null;
    form?: { name?: string; login?: string; store?: string };
  },
) => Promise<FastifyReply>;

/** The operator's home: the sellers and the apps, searched and paged, with the new-seller form. */
export function accountsPageOf(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame): AccountsPage {
  const platform = app.platform;
  const { db } = platform.database;
  const { page } = operator;

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
    const q = typeof query.q === 'string' ? query.q.trim().slice(0, 200) : '';
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
    const [stores, found] = await Promise.all([
      listTenantsOfSellers(
        db,
        sellers.map((s) => s.id),
      ),
      foundForOperator(t, db, q),
    ]);
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
        found,
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

  return accountsPage;
}

/** The operator's home, or the sign-in page; a notice of what was just deleted. */
export function showAccounts(operator: OperatorFrame, accountsPage: AccountsPage) {
  const { signInPage } = operator;
  return async function showAccounts(request: FastifyRequest, reply: FastifyReply) {
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
  };
}

/** Creates a seller account with its first store from the home page's form. */
export function createSellerAccount(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame, accountsPage: AccountsPage) {
  const platform = app.platform;
  const { db } = platform.database;
  const deps = { clock: platform.clock, random: platform.random };
  const { guard } = operator;
  return async function createSellerAccount(request: FastifyRequest, reply: FastifyReply) {
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
  };
}

/** Deletes a client app once confirmed; without JavaScript, asks first on a page of its own. */
export function deleteClientApp(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame) {
  const platform = app.platform;
  const { db } = platform.database;
  const { guard, page } = operator;
  return async function deleteClientApp(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
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
  };
}
