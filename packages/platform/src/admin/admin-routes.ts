import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  type ClientApp,
  clientFromPublicRow,
  clientListQuery,
  createClient,
  createSeller,
  findPublicClientById,
  findSellerById,
  listTenantsOfSellers,
  type Seller,
  sellerListQuery,
  validateNewClient,
} from '../accounts/index.js';
import { notFound } from '../core/platform-error.js';
import { requireAdminToken } from '../http/admin-auth.js';
import { listRoute } from '../lists/list-route.js';
import { addStore, deleteClient, deleteSeller, deleteStore, renameStore, updateSeller } from './account-changes.js';
import { clientList, sellerList } from './admin-lists.js';
import {
  ClientDeletionView,
  ClientList,
  type ClientView,
  ClientView as ClientViewSchema,
  CreateClientBody,
  CreatedClientView,
  CreateSellerBody,
  ErrorResponse,
  IdParams,
  SellerDeletionView,
  SellerList,
  type SellerView,
  SellerView as SellerViewSchema,
  StoreBody,
  StoreDeletionView,
  UpdateSellerBody,
} from './admin-schemas.js';

function sellerView(seller: Seller): SellerView {
  return {
    id: seller.id,
    name: seller.name,
    login: seller.login,
    tenants: seller.tenants.map((t) => ({ id: t.id, name: t.name })),
    created_at: seller.createdAt,
  };
}

function clientView(client: ClientApp): ClientView {
  return {
    client_id: client.id,
    name: client.name,
    redirect_uris: client.redirectUris,
    scopes: client.scopes,
    default_scopes: client.defaultScopes,
    terms_of_use_url: client.termsOfUseUrl,
    privacy_policy_url: client.privacyPolicyUrl,
    created_at: client.createdAt,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    allowed_origins: client.allowedOrigins,
  };
}

const errors = { 401: ErrorResponse, 422: ErrorResponse };
const LIST_DESCRIPTION =
  'List conventions of the platform: `_limit` (default 20, max 100), `_offset`, `_paginate=cursor` with `_next_token`, ' +
  '`_sort=field:asc|desc`, filters `field=`, `field__like=`, `field__in=`, `field__gt/gte/lt/lte=`.';
const security = [{ adminToken: [] }];

/** The admin API: sellers with their stores, and client applications. Bearer admin token on every route. */
export async function adminRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  // onRequest, before the body is even parsed: an anonymous caller learns nothing about the schemas.
  app.addHook('onRequest', requireAdminToken);

  app.post(
    '/admin/v1/sellers',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateSeller',
        summary: 'Create a seller account with its stores (tenants)',
        security,
        body: CreateSellerBody,
        response: { 201: SellerViewSchema, 409: ErrorResponse, ...errors },
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
      description: LIST_DESCRIPTION,
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
        response: { 200: SellerViewSchema, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const seller = await findSellerById(db(), request.params.id);
      if (!seller) throw notFound('Seller');
      return sellerView(seller);
    },
  );

  app.post(
    '/admin/v1/clients',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminCreateClient',
        summary: 'Register a client application; the response is the only place its secret is shown',
        security,
        body: CreateClientBody,
        response: { 201: CreatedClientView, ...errors },
      },
    },
    async (request, reply) => {
      const { client, clientSecret } = await createClient(db(), validateNewClient(request.body), deps);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...clientView(client), client_secret: clientSecret });
    },
  );

  listRoute(instance, {
    url: '/admin/v1/clients',
    list: clientList,
    schema: {
      tags: ['admin'],
      operationId: 'adminListClients',
      summary: 'List client applications (no secrets)',
      security,
      description: LIST_DESCRIPTION,
      response: { 200: ClientList, ...errors },
    },
    base: () => clientListQuery(db()),
    respond: (page) => ({ meta: page.meta, results: page.results.map((row) => clientView(clientFromPublicRow(row))) }),
  });

  app.get(
    '/admin/v1/clients/:id',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminGetClient',
        summary: 'Read one client application (no secret)',
        security,
        params: IdParams,
        response: { 200: ClientViewSchema, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const client = await findPublicClientById(db(), request.params.id);
      if (!client) throw notFound('Client');
      return clientView(client);
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
        response: { 200: SellerViewSchema, 404: ErrorResponse, 409: ErrorResponse, ...errors },
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
        response: { 201: SellerViewSchema, 404: ErrorResponse, ...errors },
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
        params: Type.Object(
          { id: Type.String({ minLength: 1, maxLength: 200 }), tenantId: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        body: StoreBody,
        response: { 200: SellerViewSchema, 404: ErrorResponse, ...errors },
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
        params: Type.Object(
          { id: Type.String({ minLength: 1, maxLength: 200 }), tenantId: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 200: StoreDeletionView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => deleteStore(platform.database, request.params.id, request.params.tenantId),
  );

  app.delete(
    '/admin/v1/clients/:id',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminDeleteClient',
        summary:
          'Delete a client application: its tokens are revoked, its consents and codes removed, its webhook subscriptions and their deliveries deleted',
        security,
        params: IdParams,
        response: { 200: ClientDeletionView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const deleted = await deleteClient(db(), request.params.id, platform.clock.now());
      return { revoked_grants: deleted.revokedGrants, subscriptions: deleted.subscriptions };
    },
  );
}
