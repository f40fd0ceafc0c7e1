import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ListEnvelope } from '@feira/contract';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refuse } from '../core/refusals.js';
import { requireAdminToken } from '../http/admin-auth.js';
import type { PlatformContext } from '../http/platform-context.js';
import { requireAccessToken } from '../identity/index.js';
import { listRoute } from '../lists/list-route.js';
import type { RecordKind, RecordTable } from './record-kind.js';
import type { RecordKindRegistry } from './record-kinds.js';
import { assertTenantExists, deleteRecord, findRecord, insertRecord, storeRecordsQuery, updateRecord } from './record-write.js';

const ErrorResponse = Type.Unsafe<unknown>({ $ref: 'PlatformError#' });
const RecordIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
// The record API's own bound (200), wider than the shared store parameter's (D135).
const TenantParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 200 }) });
type TenantParams = Static<typeof TenantParams>;
const TenantRecordParams = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 200 }),
  id: Type.String({ minLength: 1, maxLength: 200 }),
});
type TenantRecordParams = Static<typeof TenantRecordParams>;
const LIST_DESCRIPTION =
  'List conventions: `_limit`, `_offset`, `_paginate=cursor`, `_next_token`, `_sort=field[:asc|:desc],…`, ' +
  'filters `field=`, `field__like`, `__in`, `__gt`, `__gte`, `__lt`, `__lte` (spec-notes L1–L9).';

type AnyKind = RecordKind<RecordTable, unknown, unknown, unknown>;

/** Names for operationIds (`listOrders`, `getOrder`, `adminCreateOrder` …), stable whatever the paths. */
function operationNames(kind: AnyKind): { plural: string; singular: string } {
  const plural = `${kind.table.charAt(0).toUpperCase()}${kind.table.slice(1)}`;
  return { plural, singular: kind.label.replace(/\s+(.)/g, (_m, c: string) => c.toUpperCase()) };
}

/**
 * The kind's schemas as named OpenAPI components (`Order`, `OrderInput`,
 * `OrderPatch`, `OrderList` …), so generated clients get one type per
 * record instead of an inline copy per operation; registered by recordRoutes.
 */
function componentSchemas(kind: AnyKind) {
  const { singular } = operationNames(kind);
  const ref = (name: string) => Type.Unsafe<unknown>({ $ref: `${name}#` });
  return {
    definitions: [
      { ...kind.schemas.record, $id: singular },
      { ...kind.schemas.input, $id: `${singular}Input` },
      { ...kind.schemas.patch, $id: `${singular}Patch` },
      { ...ListEnvelope(ref(singular)), $id: `${singular}List` },
    ],
    record: ref(singular),
    input: ref(`${singular}Input`),
    patch: ref(`${singular}Patch`),
    list: ref(`${singular}List`),
  };
}

/** Seller reads of one kind: its list and one record, with a bearer access token holding the kind's scope. */
function sellerReadRoutes(instance: FastifyInstance, kind: AnyKind): void {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const errors = { 401: ErrorResponse, 403: ErrorResponse, 422: ErrorResponse };
  const tags = [kind.table];
  const { plural, singular } = operationNames(kind);
  const named = componentSchemas(kind);
  listRoute(instance, {
    url: kind.readPath,
    list: kind.list,
    preHandler: requireAccessToken(kind.scope),
    schema: {
      operationId: `list${plural}`,
      tags,
      summary: `List ${kind.table} of the tenant`,
      description: LIST_DESCRIPTION,
      response: { 200: named.list, ...errors },
    },
    base: (request) => storeRecordsQuery(platform.database.db, kind, request.seller?.tenantId as string),
  });
  app.get(
    `${kind.readPath}/:id`,
    {
      preHandler: requireAccessToken(kind.scope),
      schema: {
        operationId: `get${singular}`,
        tags,
        summary: `Read one of the tenant's ${kind.table} (another tenant's record is a 404)`,
        params: RecordIdParams,
        response: { 200: named.record, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const row = await findRecord(kind, platform.database.db, request.seller?.tenantId as string, request.params.id);
      if (!row) throw refuse('RECORD_NOT_FOUND', { what: 'Record' });
      return kind.present(row);
    },
  );
}

/** The admin record API's options, the same for each route of one kind. */
interface AdminKindRoutes {
  kind: AnyKind;
  path: string;
  tags: string[];
  named: ReturnType<typeof componentSchemas>;
  singular: string;
}

const ADMIN_SECURITY = [{ adminToken: [] }];
const ADMIN_ERRORS = { 401: ErrorResponse, 404: ErrorResponse, 422: ErrorResponse };

/** Marketplace-side writes of one kind (admin token): each appends its outbox event in the same transaction (spec-notes W6). */
function adminWriteRoutes(instance: FastifyInstance, kind: AnyKind): void {
  const { platform } = instance;
  const { plural, singular } = operationNames(kind);
  const routes: AdminKindRoutes = {
    kind,
    path: `/admin/v1/tenants/:tenant_id/${kind.table}`,
    tags: ['admin', kind.table],
    named: componentSchemas(kind),
    singular,
  };
  adminRecordListRoute(instance, platform, routes, plural);
  instance.post<{ Params: TenantParams; Body: unknown }>(routes.path, createRecordOptions(routes), createRecord(platform, kind));
  instance.patch<{ Params: TenantRecordParams; Body: unknown }>(
    `${routes.path}/:id`,
    updateRecordOptions(routes),
    patchRecord(platform, kind),
  );
  instance.delete<{ Params: TenantRecordParams }>(
    `${routes.path}/:id`,
    deleteRecordOptions(routes),
    removeRecord(platform, kind),
  );
}

/** A store's records of one kind, with the list conventions; an unknown store is a 404. */
function adminRecordListRoute(instance: FastifyInstance, platform: PlatformContext, routes: AdminKindRoutes, plural: string) {
  const { kind, named } = routes;
  listRoute(instance, {
    url: routes.path,
    list: kind.list,
    schema: {
      operationId: `adminList${plural}`,
      tags: routes.tags,
      summary: `List a tenant's ${kind.table}`,
      description: LIST_DESCRIPTION,
      security: ADMIN_SECURITY,
      params: TenantParams,
      response: { 200: named.list, ...ADMIN_ERRORS },
    },
    base: async (request) => {
      await assertTenantExists(platform.database.db, request.params.tenant_id);
      return storeRecordsQuery(platform.database.db, kind, request.params.tenant_id);
    },
  });
}

function writeDeps(platform: PlatformContext) {
  return { clock: platform.clock, random: platform.random, database: platform.database };
}

/** POST of a record. */
function createRecordOptions({ kind, tags, named, singular }: AdminKindRoutes) {
  return {
    schema: {
      operationId: `adminCreate${singular}`,
      tags,
      summary: `Create a record; emits a CREATION event`,
      security: ADMIN_SECURITY,
      params: TenantParams,
      body: named.input,
      response: { 201: named.record, 409: ErrorResponse, ...ADMIN_ERRORS },
    },
    config: { bodyExample: kind.trigger.create('example') },
  };
}

/** Creates a record of the kind and its CREATION event. */
function createRecord(platform: PlatformContext, kind: AnyKind) {
  const deps = writeDeps(platform);
  return async function createRecord(request: FastifyRequest<{ Params: TenantParams; Body: unknown }>, reply: FastifyReply) {
    // An unknown tenant is refused by the insert's foreign key (a 404 too): one round trip, not two.
    // Fastify has validated the body against the kind's input schema before this runs.
    return reply.code(201).send(await insertRecord(kind, platform.database.db, request.params.tenant_id, request.body, deps));
  };
}

/** PATCH of a record. */
function updateRecordOptions({ kind, tags, named, singular }: AdminKindRoutes) {
  return {
    schema: {
      operationId: `adminUpdate${singular}`,
      tags,
      summary: `Change the fields given; emits an UPDATE event`,
      security: ADMIN_SECURITY,
      params: TenantRecordParams,
      body: named.patch,
      response: { 200: named.record, 409: ErrorResponse, ...ADMIN_ERRORS },
    },
    config: { bodyExample: kind.trigger.update },
  };
}

/** Changes the fields given and appends the UPDATE event. */
function patchRecord(platform: PlatformContext, kind: AnyKind) {
  const deps = writeDeps(platform);
  return async function patchRecord(request: FastifyRequest<{ Params: TenantRecordParams; Body: unknown }>) {
    const { tenant_id: tenantId, id } = request.params;
    return updateRecord(kind, platform.database.db, tenantId, id, request.body, deps);
  };
}

/** DELETE of a record. */
function deleteRecordOptions({ tags, singular }: AdminKindRoutes) {
  return {
    schema: {
      operationId: `adminDelete${singular}`,
      tags,
      summary: `Delete a record; emits a DELETION event`,
      security: ADMIN_SECURITY,
      params: TenantRecordParams,
      response: { 204: Type.Null(), ...ADMIN_ERRORS },
    },
  };
}

/** Deletes a record and appends its DELETION event. */
function removeRecord(platform: PlatformContext, kind: AnyKind) {
  const deps = writeDeps(platform);
  return async function removeRecord(request: FastifyRequest<{ Params: TenantRecordParams }>, reply: FastifyReply) {
    await deleteRecord(kind, platform.database.db, request.params.tenant_id, request.params.id, deps);
    return reply.code(204).send(null);
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The kinds of record this app serves (D89): buildApp decorates it with `AppDeps.recordKinds` or the platform's own. */
    recordKinds: RecordKindRegistry;
  }
}

/** Routes of the records capability, one set per kind of the registry in use (`app.recordKinds`); registered by buildApp. */
export async function recordRoutes(app: FastifyInstance): Promise<void> {
  const { kinds } = app.recordKinds;
  for (const kind of kinds) for (const definition of componentSchemas(kind).definitions) app.addSchema(definition);
  await app.register(async (sellerApp) => {
    for (const kind of kinds) sellerReadRoutes(sellerApp, kind);
  });
  await app.register(async (adminApp) => {
    adminApp.addHook('onRequest', requireAdminToken);
    for (const kind of kinds) adminWriteRoutes(adminApp, kind);
  });
}
