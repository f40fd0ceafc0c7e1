import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ListEnvelope,
  Order,
  OrderInput,
  OrderPatch,
  Product,
  ProductInput,
  ProductPatch,
  type Scope,
  Ticket,
  TicketInput,
  TicketPatch,
  Transaction,
  TransactionInput,
  TransactionPatch,
} from '@feira/contract';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { requireAdminToken } from '../admin/admin-auth.js';
import { notFound } from '../core/platform-error.js';
import { requireAccessToken } from '../identity/access-token-guard.js';
import { runListForRequest } from '../lists/list-engine.js';
import type { ListResource } from '../lists/list-resource.js';
import type { Schema } from '../storage/schema.js';
import { deleteOrder, findOrder, insertOrder, presentOrder, updateOrder } from './order-repository.js';
import { deleteProduct, findProduct, insertProduct, presentProduct, updateProduct } from './product-repository.js';
import { orderList, productList, ticketList, transactionList } from './record-lists.js';
import type { RecordWriteDeps } from './record-write.js';
import { assertTenantExists } from './record-write.js';
import { deleteTicket, findTicket, insertTicket, presentTicket, updateTicket } from './ticket-repository.js';
import {
  deleteTransaction,
  findTransaction,
  insertTransaction,
  presentTransaction,
  updateTransaction,
} from './transaction-repository.js';

/** One record collection as the routes see it: where it is read, with which scope, and its repository. */
interface RecordCollection {
  /** Admin path segment and table name. */
  name: 'orders' | 'products' | 'tickets' | 'transactions';
  /** Seller read path of the list (issue 4 table). */
  readPath: string;
  scope: Scope;
  tag: string;
  record: TSchema;
  input: TSchema;
  patch: TSchema;
  list: ListResource<never, unknown>;
  find(db: Kysely<Schema>, tenantId: string, id: string): Promise<unknown | undefined>;
  present(row: never): unknown;
  insert(db: Kysely<Schema>, tenantId: string, input: never, deps: RecordWriteDeps): Promise<unknown>;
  update(db: Kysely<Schema>, tenantId: string, id: string, patch: never, deps: RecordWriteDeps): Promise<unknown>;
  remove(db: Kysely<Schema>, tenantId: string, id: string, deps: RecordWriteDeps): Promise<void>;
}

const COLLECTIONS: RecordCollection[] = [
  {
    name: 'orders',
    readPath: '/v1/orders',
    scope: 'open:order-order:read',
    tag: 'orders',
    record: Order,
    input: OrderInput,
    patch: OrderPatch,
    list: orderList as ListResource<never, unknown>,
    find: findOrder,
    present: presentOrder,
    insert: insertOrder,
    update: updateOrder,
    remove: deleteOrder,
  },
  {
    name: 'products',
    readPath: '/seller/v1/products',
    scope: 'open:portfolio:read',
    tag: 'products',
    record: Product,
    input: ProductInput,
    patch: ProductPatch,
    list: productList as ListResource<never, unknown>,
    find: findProduct,
    present: presentProduct,
    insert: insertProduct,
    update: updateProduct,
    remove: deleteProduct,
  },
  {
    name: 'tickets',
    readPath: '/seller/v0/tickets',
    scope: 'open:ticket:read',
    tag: 'tickets',
    record: Ticket,
    input: TicketInput,
    patch: TicketPatch,
    list: ticketList as ListResource<never, unknown>,
    find: findTicket,
    present: presentTicket,
    insert: insertTicket,
    update: updateTicket,
    remove: deleteTicket,
  },
  {
    name: 'transactions',
    readPath: '/seller/v1/financial-analysis/transactions',
    scope: 'open:financial-transaction:read',
    tag: 'transactions',
    record: Transaction,
    input: TransactionInput,
    patch: TransactionPatch,
    list: transactionList as ListResource<never, unknown>,
    find: findTransaction,
    present: presentTransaction,
    insert: insertTransaction,
    update: updateTransaction,
    remove: deleteTransaction,
  },
];

const ErrorResponse = Type.Unsafe<unknown>({ $ref: 'PlatformError#' });
const RecordIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const TenantParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 200 }) });
const TenantRecordParams = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 200 }),
  id: Type.String({ minLength: 1, maxLength: 200 }),
});
const LIST_DESCRIPTION =
  'List conventions: `_limit`, `_offset`, `_paginate=cursor`, `_next_token`, `_sort=field[:asc|:desc],…`, ' +
  'filters `field=`, `field__like`, `__in`, `__gt`, `__gte`, `__lt`, `__lte` (SPEC-DECISIONS L1–L9).';

function baseQuery(db: Kysely<Schema>, collection: RecordCollection, tenantId: string) {
  return db.selectFrom(collection.name).selectAll().where('tenant_id', '=', tenantId);
}

/** Seller reads (bearer access token, per-collection scope) of the four record collections (issue 4). */
async function sellerReadRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const security = [{ sellerToken: [] }];
  const errors = { 401: ErrorResponse, 403: ErrorResponse, 422: ErrorResponse };
  for (const collection of COLLECTIONS) {
    app.get(
      collection.readPath,
      {
        preHandler: requireAccessToken(collection.scope),
        schema: {
          tags: [collection.tag],
          summary: `List ${collection.name} of the tenant`,
          description: LIST_DESCRIPTION,
          security,
          response: { 200: ListEnvelope(collection.record), ...errors },
        },
      },
      async (request) =>
        runListForRequest(
          request,
          collection.list,
          baseQuery(platform.database.db, collection, request.seller?.tenantId as string),
        ),
    );
    app.get(
      `${collection.readPath}/:id`,
      {
        preHandler: requireAccessToken(collection.scope),
        schema: {
          tags: [collection.tag],
          summary: `Read one of the tenant's ${collection.name} (another tenant's record is a 404)`,
          security,
          params: RecordIdParams,
          response: { 200: collection.record, 404: ErrorResponse, ...errors },
        },
      },
      async (request) => {
        const row = await collection.find(platform.database.db, request.seller?.tenantId as string, request.params.id);
        if (!row) throw notFound('Record');
        return collection.present(row as never);
      },
    );
  }
}

/** Marketplace-side writes (admin token): each appends its outbox event in the same transaction (SPEC-DECISIONS W6). */
async function adminWriteRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  const security = [{ adminToken: [] }];
  const errors = { 401: ErrorResponse, 404: ErrorResponse, 422: ErrorResponse };
  app.addHook('onRequest', requireAdminToken);
  for (const collection of COLLECTIONS) {
    const path = `/admin/v1/tenants/:tenant_id/${collection.name}`;
    const tags = ['admin', collection.tag];
    app.get(
      path,
      {
        schema: {
          tags,
          summary: `List a tenant's ${collection.name}`,
          description: LIST_DESCRIPTION,
          security,
          params: TenantParams,
          response: { 200: ListEnvelope(collection.record), ...errors },
        },
      },
      async (request) => {
        await assertTenantExists(db(), request.params.tenant_id);
        return runListForRequest(request, collection.list, baseQuery(db(), collection, request.params.tenant_id));
      },
    );
    app.post(
      path,
      {
        schema: {
          tags,
          summary: `Create a record; emits a CREATION event`,
          security,
          params: TenantParams,
          body: collection.input,
          response: { 201: collection.record, 409: ErrorResponse, ...errors },
        },
      },
      async (request, reply) => {
        await assertTenantExists(db(), request.params.tenant_id);
        const created = await collection.insert(db(), request.params.tenant_id, request.body as never, deps);
        return reply.code(201).send(created);
      },
    );
    app.patch(
      `${path}/:id`,
      {
        schema: {
          tags,
          summary: `Change the fields given; emits an UPDATE event`,
          security,
          params: TenantRecordParams,
          body: collection.patch,
          response: { 200: collection.record, 409: ErrorResponse, ...errors },
        },
      },
      async (request) => collection.update(db(), request.params.tenant_id, request.params.id, request.body as never, deps),
    );
    app.delete(
      `${path}/:id`,
      {
        schema: {
          tags,
          summary: `Delete a record; emits a DELETION event`,
          security,
          params: TenantRecordParams,
          response: { 204: Type.Null(), ...errors },
        },
      },
      async (request, reply) => {
        await collection.remove(db(), request.params.tenant_id, request.params.id, deps);
        return reply.code(204).send(null);
      },
    );
  }
}

/** Routes of the records capability; registered by buildApp. */
export async function recordRoutes(app: FastifyInstance): Promise<void> {
  await app.register(sellerReadRoutes);
  await app.register(adminWriteRoutes);
}
