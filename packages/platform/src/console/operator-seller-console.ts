import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findSellerById } from '../accounts/index.js';
import { addStore, deleteSeller, deleteStore, renameStore, updateSeller } from '../admin/account-changes.js';
import type { PlatformError } from '../core/platform-error.js';
import { requestTranslator } from '../i18n/i18n.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import type { ConsoleKit } from './console-kit.js';
import { field, type OperatorFrame, refusalText } from './operator-frame.js';
import { sellerView } from './operator-views.js';

type SellerPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  extra?: { status?: number; message?: string | null; error?: string | null },
) => Promise<FastifyReply>;

/** One seller's page: their account and stores, or the console's 404 when there is no such seller. */
export function sellerPageOf(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame): SellerPage {
  const { db } = app.platform.database;
  const { page } = operator;

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

  return sellerPage;
}

/** A seller's page, with a notice of what was just done. */
export function showSeller(operator: OperatorFrame, sellerPage: SellerPage) {
  const { guard } = operator;
  return async function showSeller(
    request: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ) {
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
  };
}

/** Changes a seller's name, login or password from their page. */
export function updateSellerAccount(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame, sellerPage: SellerPage) {
  const platform = app.platform;
  const { db } = platform.database;
  const deps = { clock: platform.clock, random: platform.random };
  const { guard } = operator;
  return async function updateSellerAccount(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
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
  };
}

/** Deletes a seller once their login is typed to confirm. */
export function deleteSellerAccount(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame, sellerPage: SellerPage) {
  const platform = app.platform;
  const { db } = platform.database;
  const { guard } = operator;
  return async function deleteSellerAccount(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
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
  };
}

type StoreChange = (
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  change: (name: string) => Promise<unknown>,
) => Promise<FastifyReply>;

/** How a seller's store is added or renamed. */
export function storeChangeOf(kit: ConsoleKit, operator: OperatorFrame, sellerPage: SellerPage): StoreChange {
  const { guard } = operator;

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

  return storeChange;
}

/** Adds a store to a seller. */
export function addSellerStore(app: FastifyInstance, storeChange: StoreChange) {
  const platform = app.platform;
  const { db } = platform.database;
  const deps = { clock: platform.clock, random: platform.random };
  return function addSellerStore(request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
    return storeChange(request, reply, (name) => addStore(db, request.params.id, name, deps));
  };
}

/** Renames one of a seller's stores. */
export function renameSellerStore(app: FastifyInstance, storeChange: StoreChange) {
  const { db } = app.platform.database;
  return function renameSellerStore(request: FastifyRequest<{ Params: { id: string; tenantId: string } }>, reply: FastifyReply) {
    return storeChange(request, reply, (name) => renameStore(db, request.params.id, request.params.tenantId, name));
  };
}

/** Deletes one of a seller's stores once confirmed; without JavaScript, asks first on a page of its own. */
export function deleteSellerStore(app: FastifyInstance, kit: ConsoleKit, operator: OperatorFrame, sellerPage: SellerPage) {
  const platform = app.platform;
  const { db } = platform.database;
  const { guard, page } = operator;
  return async function deleteSellerStore(
    request: FastifyRequest<{ Params: { id: string; tenantId: string } }>,
    reply: FastifyReply,
  ) {
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
  };
}
