import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { createSeller, findSellerById, listTenantsOfSellers, type Seller, sellerListQuery } from '../accounts/index.js';
import { notFound } from '../core/platform-error.js';
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
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };

  app.post(
    '/admin/v1/sellers',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateSeller',
        summary: 'Create a seller account with its stores (tenants)',
        security,
        body: CreateSellerBody,
        response: { 201: SellerView, 409: ErrorResponse, ...errors },
      },
    },
    async (request, reply) => {
      const seller = await createSeller(db(), request.body, deps);
      return reply.code(201).send(sellerView(seller));
    },
  );

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

  app.get(
    '/admin/v1/sellers/:id',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminGetSeller',
        summary: 'Read one seller account (no password)',
        security,
        params: IdParams,
        response: { 200: SellerView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const seller = await findSellerById(db(), request.params.id);
      if (!seller) throw notFound('Seller');
      return sellerView(seller);
    },
  );

  app.patch(
    '/admin/v1/sellers/:id',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminUpdateSeller',
        summary: "Change a seller's name, login or password (a new password ends every login session; app tokens stay)",
        security,
        params: IdParams,
        body: UpdateSellerBody,
        response: { 200: SellerView, 404: ErrorResponse, 409: ErrorResponse, ...errors },
      },
    },
    async (request) => sellerView((await updateSeller(db(), request.params.id, request.body, deps)).seller),
  );

  app.delete(
    '/admin/v1/sellers/:id',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminDeleteSeller',
        summary:
          'Delete a seller: every token of theirs is revoked, every session ends, and their stores go with every record, subscription, delivery and shipping setting',
        security,
        params: IdParams,
        response: { 200: SellerDeletionView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const deleted = await deleteSeller(platform.database, request.params.id, platform.clock.now());
      return { stores: deleted.stores, revoked_grants: deleted.revokedGrants, ended_sessions: deleted.endedSessions };
    },
  );

  app.post(
    '/admin/v1/sellers/:id/tenants',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminAddStore',
        summary: 'Add a store (tenant) to a seller',
        security,
        params: IdParams,
        body: StoreBody,
        response: { 201: SellerView, 404: ErrorResponse, ...errors },
      },
    },
    async (request, reply) => {
      await addStore(db(), request.params.id, request.body.name, deps);
      return reply.code(201).send(sellerView((await findSellerById(db(), request.params.id)) as Seller));
    },
  );

  app.patch(
    '/admin/v1/sellers/:id/tenants/:tenantId',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminRenameStore',
        summary: "Rename one of a seller's stores",
        security,
        params: SellerStoreParams,
        body: StoreBody,
        response: { 200: SellerView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      await renameStore(db(), request.params.id, request.params.tenantId, request.body.name);
      return sellerView((await findSellerById(db(), request.params.id)) as Seller);
    },
  );

  app.delete(
    '/admin/v1/sellers/:id/tenants/:tenantId',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminDeleteStore',
        summary:
          "Delete one of a seller's stores with its records, webhook subscriptions and deliveries, shipping settings and freight tables; apps' consents for it are withdrawn",
        security,
        params: SellerStoreParams,
        response: { 200: StoreDeletionView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => deleteStore(platform.database, request.params.id, request.params.tenantId),
  );
}
