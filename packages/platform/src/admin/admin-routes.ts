import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type ClientApp, clientFromPublicRow, createClient, findPublicClientById } from '../accounts/client-repository.js';
import { validateNewClient } from '../accounts/client-rules.js';
import { createSeller, findSellerById, listTenantsOfSellers, type Seller } from '../accounts/seller-repository.js';
import { notFound } from '../core/platform-error.js';
import { runListForRequest } from '../lists/list-engine.js';
import { requireAdminToken } from './admin-auth.js';
import { CLIENT_PUBLIC_COLUMNS, clientList, sellerList } from './admin-lists.js';
import {
  ClientList,
  type ClientView,
  ClientView as ClientViewSchema,
  CreateClientBody,
  CreatedClientView,
  CreateSellerBody,
  ErrorResponse,
  IdParams,
  SellerList,
  type SellerView,
  SellerView as SellerViewSchema,
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
  };
}

const errors = { 401: ErrorResponse, 422: ErrorResponse };
const LIST_DESCRIPTION =
  'List conventions of the platform: `_limit` (default 20, max 100), `_offset`, `_paginate=cursor` with `_next_token`, ' +
  '`_sort=field:asc|desc`, filters `field=`, `field__like=`, `field__in=`, `field__gt/gte/lt/lte=`.';
const security = [{ adminToken: [] }];

/** The admin API (issue 2 §4): sellers with their stores, and client applications. Bearer admin token on every route. */
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
      config: { listResource: sellerList as never },
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

  app.get(
    '/admin/v1/sellers',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminListSellers',
        summary: 'List seller accounts (no passwords)',
        security,
        description: LIST_DESCRIPTION,
        response: { 200: SellerList, ...errors },
      },
    },
    async (request) => {
      const base = db().selectFrom('sellers').select(['id', 'name', 'login', 'created_at']);
      const page = await runListForRequest(request, sellerList, base);
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
  );

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
      config: { listResource: clientList as never },
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

  app.get(
    '/admin/v1/clients',
    {
      schema: {
        tags: ['admin'],
        operationId: 'adminListClients',
        summary: 'List client applications (no secrets)',
        security,
        description: LIST_DESCRIPTION,
        response: { 200: ClientList, ...errors },
      },
    },
    async (request) => {
      const page = await runListForRequest(request, clientList, db().selectFrom('clients').select(CLIENT_PUBLIC_COLUMNS));
      return { meta: page.meta, results: page.results.map((row) => clientView(clientFromPublicRow(row))) };
    },
  );

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
}
