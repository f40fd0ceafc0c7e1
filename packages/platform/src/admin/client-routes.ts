import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import {
  type ClientApp,
  clientFromPublicRow,
  clientListQuery,
  createClient,
  findPublicClientById,
  setClientRateLimit,
  validateNewClient,
} from '../accounts/index.js';
import { refuse } from '../core/refusals.js';
import type { PlatformContext } from '../http/platform-context.js';
import { listRoute } from '../lists/list-route.js';
import { deleteClient } from './account-changes.js';
import { clientList } from './admin-lists.js';
import {
  ClientDeletionView,
  ClientList,
  ClientView,
  CreateClientBody,
  CreatedClientView,
  ErrorResponse,
  IdParams,
  UpdateClientBody,
} from './admin-schemas.js';
import { ADMIN_LIST_DESCRIPTION, clientView, ADMIN_ERRORS as errors, ADMIN_SECURITY as security } from './admin-views.js';

/** The admin API's client applications: register (the secret shown once), list, read, set the rate limit, delete. */
export async function clientRoutes(instance: FastifyInstance): Promise<void> {
  const { platform } = instance;
  instance.post<{ Body: Static<typeof CreateClientBody> }>(
    '/admin/v1/clients',
    createClientAppOptions,
    createClientApp(platform),
  );
  clientListRoute(instance, platform);
  instance.get<{ Params: Static<typeof IdParams> }>('/admin/v1/clients/:id', getClientOptions, getClient(platform));
  instance.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateClientBody> }>(
    '/admin/v1/clients/:id',
    patchClientOptions,
    patchClient(platform),
  );
  instance.delete<{ Params: Static<typeof IdParams> }>(
    '/admin/v1/clients/:id',
    deleteClientAppOptions,
    deleteClientApp(platform),
  );
}

/** A client as the admin API shows it, with the rate limit it runs under. */
function viewOf(platform: PlatformContext) {
  return (client: ClientApp) => clientView(client, platform.config.apiRateLimit);
}

/** POST of a client application. */
const createClientAppOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminCreateClient',
    summary: 'Register a client application; the response is the only place its secret is shown',
    security,
    body: CreateClientBody,
    response: { 201: CreatedClientView, ...errors },
  },
};

/** Registers a client application; its secret is in this answer and nowhere else. */
function createClientApp(platform: PlatformContext) {
  const deps = { clock: platform.clock, random: platform.random };
  const view = viewOf(platform);
  return async function createClientApp(request: FastifyRequest<{ Body: Static<typeof CreateClientBody> }>, reply: FastifyReply) {
    const { client, clientSecret } = await createClient(platform.database.db, validateNewClient(request.body), deps);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send({ ...view(client), client_secret: clientSecret });
  };
}

/** The client applications, with the list conventions (no secrets). */
function clientListRoute(instance: FastifyInstance, platform: PlatformContext): void {
  const view = viewOf(platform);
  listRoute(instance, {
    url: '/admin/v1/clients',
    list: clientList,
    schema: {
      tags: ['admin'],
      operationId: 'adminListClients',
      summary: 'List client applications (no secrets)',
      security,
      description: ADMIN_LIST_DESCRIPTION,
      response: { 200: ClientList, ...errors },
    },
    base: () => clientListQuery(platform.database.db),
    respond: (page) => ({ meta: page.meta, results: page.results.map((row) => view(clientFromPublicRow(row))) }),
  });
}

/** GET of one client application. */
const getClientOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminGetClient',
    summary: 'Read one client application (no secret)',
    security,
    params: IdParams,
    response: { 200: ClientView, 404: ErrorResponse, ...errors },
  },
};

/** One client application, without its secret. */
function getClient(platform: PlatformContext) {
  const view = viewOf(platform);
  return async function getClient(request: FastifyRequest<{ Params: Static<typeof IdParams> }>) {
    const client = await findPublicClientById(platform.database.db, request.params.id);
    if (!client) throw refuse('ADMIN_CLIENT_NOT_FOUND');
    return view(client);
  };
}

/** PATCH of a client application's rate limit. */
const patchClientOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminUpdateClient',
    summary:
      'Set a client application’s API rate limit per store (spec-notes I20), or with `rate_limit: null` give it the platform’s default; every API process applies it from its next request',
    security,
    params: IdParams,
    body: UpdateClientBody,
    response: { 200: ClientView, 404: ErrorResponse, ...errors },
  },
};

/** Sets a client application's API rate limit per store, or gives it the platform's default. */
function patchClient(platform: PlatformContext) {
  const view = viewOf(platform);
  return async function patchClient(
    request: FastifyRequest<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateClientBody> }>,
  ) {
    const db = platform.database.db;
    const { rate_limit: limit } = request.body;
    const changed = await setClientRateLimit(
      db,
      request.params.id,
      limit && { requestsPerSecond: limit.requests_per_second, burst: limit.burst },
    );
    const client = changed ? await findPublicClientById(db, request.params.id) : undefined;
    if (!client) throw refuse('ADMIN_CLIENT_NOT_FOUND');
    return view(client);
  };
}

/** DELETE of a client application. */
const deleteClientAppOptions: RouteShorthandOptions = {
  schema: {
    tags: ['admin'],
    operationId: 'adminDeleteClient',
    summary:
      'Delete a client application: its tokens are revoked, its consents and codes removed, its webhook subscriptions and their deliveries deleted',
    security,
    params: IdParams,
    response: { 200: ClientDeletionView, 404: ErrorResponse, ...errors },
  },
};

/** Deletes a client application with its tokens, consents, codes and webhook subscriptions. */
function deleteClientApp(platform: PlatformContext) {
  return async function deleteClientApp(request: FastifyRequest<{ Params: Static<typeof IdParams> }>) {
    const deleted = await deleteClient(platform.database.db, request.params.id, platform.clock.now());
    return { revoked_grants: deleted.revokedGrants, subscriptions: deleted.subscriptions };
  };
}
