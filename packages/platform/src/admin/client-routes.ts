import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
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
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { platform } = app;
  const db = () => platform.database.db;
  const deps = { clock: platform.clock, random: platform.random };
  const view = (client: ClientApp) => clientView(client, platform.config.apiRateLimit);

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
      return reply.code(201).send({ ...view(client), client_secret: clientSecret });
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
      description: ADMIN_LIST_DESCRIPTION,
      response: { 200: ClientList, ...errors },
    },
    base: () => clientListQuery(db()),
    respond: (page) => ({ meta: page.meta, results: page.results.map((row) => view(clientFromPublicRow(row))) }),
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
        response: { 200: ClientView, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const client = await findPublicClientById(db(), request.params.id);
      if (!client) throw refuse('ADMIN_CLIENT_NOT_FOUND');
      return view(client);
    },
  );

  app.patch(
    '/admin/v1/clients/:id',
    {
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
    },
    async (request) => {
      const { rate_limit: limit } = request.body;
      const changed = await setClientRateLimit(
        db(),
        request.params.id,
        limit && { requestsPerSecond: limit.requests_per_second, burst: limit.burst },
      );
      const client = changed ? await findPublicClientById(db(), request.params.id) : undefined;
      if (!client) throw refuse('ADMIN_CLIENT_NOT_FOUND');
      return view(client);
    },
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
