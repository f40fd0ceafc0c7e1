import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { createSeller, findSellerById, listTenantsOfSellers, type Seller, sellerListQuery } from '../accounts/index.js';
import { refuse } from '../core/refusals.js';
import type { PlatformContext } from '../http/platform-context.js';
import { listRoute } from '../lists/list-route.js';
import { addStore, deleteSeller, deleteStore, renameStore, updateSeller } from './account-changes.js';
import { sellerList } from './admin-lists.js';
import {
  CreateSellerBody,
  ErrorResponse,
  IdParams,
  SellerDeletionView,
  SellerList,
  SellerView,
  StoreBody,
  StoreDeletionView,
  UpdateSellerBody,
} from './admin-schemas.js';
import { ADMIN_LIST_DESCRIPTION, ADMIN_ERRORS as errors, ADMIN_SECURITY as security, sellerView } from './admin-views.js';

const SellerStoreParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 200 }), tenantId: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

/** The admin API's sellers and their stores (tenants): create, list, read, change, delete. */
export async function sellerRoutes(instance: FastifyInstance): Promise<void> {
  const { platform } = instance;
  instance.post<{ Body: Static<typeof CreateSellerBody> }>(
    '/admin/v1/sellers',
    createSellerAccountOptions,
    createSellerAccount(platform),
  );
  sellerListRoute(instance, platform);
  instance.get<{ Params: Static<typeof IdParams> }>('/admin/v1/sellers/:id', getSellerOptions, getSeller(platform));
  instance.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateSellerBody> }>(
    '/admin/v1/sellers/:id',
    patchSellerOptions,
    patchSeller(platform),
  );
  instance.delete<{ Params: Static<typeof IdParams> }>(
    '/admin/v1/sellers/:id',
    deleteSellerAccountOptions,
    deleteSellerAccount(platform),
  );
  instance.post<{ Params: Static<typeof IdParams>; Body: Static<typeof StoreBody> }>(
    '/admin/v1/sellers/:id/tenants',
    addSellerStoreOptions,
    addSellerStore(platform),
  );
  instance.patch<{ Params: Static<typeof SellerStoreParams>; Body: Static<typeof StoreBody> }>(
    '/admin/v1/sellers/:id/tenants/:tenantId',
    renameSellerStoreOptions,
    renameSellerStore(platform),
  );
  instance.delete<{ Params: Static<typeof SellerStoreParams> }>(
    '/admin/v1/sellers/:id/tenants/:tenantId',
    deleteSellerStoreOptions,
    deleteSellerStore(platform),
  );
}

/** The seller accounts, with the list conventions (no passwords). */
function sellerListRoute(instance: FastifyInstance, platform: PlatformContext): void {
  const db = () => platform.database.db;
  listRoute(instance, {
    url: '/admin/v1/sellers',
    list: sellerList,
    schema: {
      tags: ['admin'],
      operationId: 'adminListSellers',
      summary: 'List seller accounts (no passwords)',
      security,
      description: ADMIN_LIST_DESCRIPTION,
      response: { 200: SellerList, ...errors },
    },
    base: () => sellerListQuery(db()),
    respond: async (page) => {
      const tenants = await listTenantsOfSellers(
        db(),
        page.results.map((row) => row.id),
      );
      const results = page.results.map((row) =>
        sellerView({
          id: row.id,
          name: row.name,
          login: row.login,
          createdAt: row.created_at,
          tenants: tenants.get(row.id) ?? [],
        }),
      );
      return { meta: page.meta, results };
    },
  });
}

/** POST of a seller account. */
const createSellerAccountOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminCreateSeller',
    summary: 'Create a seller account with its stores (tenants)',
    security,
    body: CreateSellerBody,
    response: { 201: SellerView, 409: ErrorResponse, ...errors },
  },
};

/** Creates a seller account with its stores. */
function createSellerAccount(platform: PlatformContext) {
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  return async function createSellerAccount(
    request: FastifyRequest<{ Body: Static<typeof CreateSellerBody> }>,
    reply: FastifyReply,
  ) {
    const seller = await createSeller(db(), request.body, deps);
    return reply.code(201).send(sellerView(seller));
  };
}

/** GET of one seller account. */
const getSellerOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminGetSeller',
    summary: 'Read one seller account (no password)',
    security,
    params: IdParams,
    response: { 200: SellerView, 404: ErrorResponse, ...errors },
  },
};

/** One seller account, without its password. */
function getSeller(platform: PlatformContext) {
  const db = () => platform.database.db;
  return async function getSeller(request: FastifyRequest<{ Params: Static<typeof IdParams> }>) {
    const seller = await findSellerById(db(), request.params.id);
    if (!seller) throw refuse('ADMIN_SELLER_NOT_FOUND');
    return sellerView(seller);
  };
}

/** PATCH of a seller account. */
const patchSellerOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminUpdateSeller',
    summary: "Change a seller's name, login or password (a new password ends every login session; app tokens stay)",
    security,
    params: IdParams,
    body: UpdateSellerBody,
    response: { 200: SellerView, 404: ErrorResponse, 409: ErrorResponse, ...errors },
  },
};

/** Changes a seller's name, login or password. */
function patchSeller(platform: PlatformContext) {
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  return async function patchSeller(
    request: FastifyRequest<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateSellerBody> }>,
  ) {
    return sellerView((await updateSeller(db(), request.params.id, request.body, deps)).seller);
  };
}

/** DELETE of a seller account. */
const deleteSellerAccountOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminDeleteSeller',
    summary:
      'Delete a seller: every token of theirs is revoked, every session ends, and their stores go with every record, subscription, delivery and shipping setting',
    security,
    params: IdParams,
    response: { 200: SellerDeletionView, 404: ErrorResponse, ...errors },
  },
};

/** Deletes a seller with their stores, tokens and sessions. */
function deleteSellerAccount(platform: PlatformContext) {
  return async function deleteSellerAccount(request: FastifyRequest<{ Params: Static<typeof IdParams> }>) {
    const deleted = await deleteSeller(platform.database, request.params.id, platform.clock.now());
    return { stores: deleted.stores, revoked_grants: deleted.revokedGrants, ended_sessions: deleted.endedSessions };
  };
}

/** POST of a seller's new store. */
const addSellerStoreOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminAddStore',
    summary: 'Add a store (tenant) to a seller',
    security,
    params: IdParams,
    body: StoreBody,
    response: { 201: SellerView, 404: ErrorResponse, ...errors },
  },
};

/** Adds a store (tenant) to a seller. */
function addSellerStore(platform: PlatformContext) {
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  return async function addSellerStore(
    request: FastifyRequest<{ Params: Static<typeof IdParams>; Body: Static<typeof StoreBody> }>,
    reply: FastifyReply,
  ) {
    await addStore(db(), request.params.id, request.body.name, deps);
    return reply.code(201).send(sellerView((await findSellerById(db(), request.params.id)) as Seller));
  };
}

/** PATCH of a seller's store. */
const renameSellerStoreOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminRenameStore',
    summary: "Rename one of a seller's stores",
    security,
    params: SellerStoreParams,
    body: StoreBody,
    response: { 200: SellerView, 404: ErrorResponse, ...errors },
  },
};

/** Renames one of a seller's stores. */
function renameSellerStore(platform: PlatformContext) {
  const db = () => platform.database.db;
  return async function renameSellerStore(
    request: FastifyRequest<{ Params: Static<typeof SellerStoreParams>; Body: Static<typeof StoreBody> }>,
  ) {
    await renameStore(db(), request.params.id, request.params.tenantId, request.body.name);
    return sellerView((await findSellerById(db(), request.params.id)) as Seller);
  };
}

/** DELETE of a seller's store. */
const deleteSellerStoreOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminDeleteStore',
    summary:
      "Delete one of a seller's stores with its records, webhook subscriptions and deliveries, shipping settings and freight tables; apps' consents for it are withdrawn",
    security,
    params: SellerStoreParams,
    response: { 200: StoreDeletionView, 404: ErrorResponse, ...errors },
  },
};

/** Deletes one of a seller's stores with everything it holds. */
function deleteSellerStore(platform: PlatformContext) {
  return async function deleteSellerStore(request: FastifyRequest<{ Params: Static<typeof SellerStoreParams> }>) {
    return deleteStore(platform.database, request.params.id, request.params.tenantId);
  };
}
