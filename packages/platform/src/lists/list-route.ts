import type { ListEnvelopeOf } from '@feira/contract';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, RouteShorthandOptions } from 'fastify';
import { type AnySelect, runListForRequest } from './list-engine.js';
import type { ListResource } from './list-resource.js';

/**
 * Route `config` key of a list route: the list declaration its query follows
 * (spec-notes L1–L9). `listRoute` sets it; the OpenAPI document reads it to
 * derive the route's query parameters (http/openapi-document.ts).
 */
export interface ListRouteConfig {
  listResource?: ListResource<never, unknown>;
}

declare module 'fastify' {
  interface FastifyContextConfig extends ListRouteConfig {}
}

/** A list route: its URL, the one list declaration it serves, and how its base query is built. */
export interface ListRouteOptions<Row, Result, Params extends TSchema, Response> {
  url: string;
  /** The declaration: the engine validates the query with it and the OpenAPI document derives the query parameters from it. */
  list: ListResource<Row, Result>;
  /** Documentation and response schemas; no `querystring`: the list declaration is the query's schema. */
  schema: Omit<FastifySchema, 'querystring' | 'params'> & { params?: Params };
  preHandler?: RouteShorthandOptions['preHandler'];
  /**
   * The query the page is read from, already scoped (to the tenant, the owner, or nothing for operator lists);
   * it must select every sort column under its own name. May refuse the request first (404 for an unknown store).
   */
  base(request: FastifyRequest<{ Params: Static<Params> }>, reply: FastifyReply): AnySelect | Promise<AnySelect>;
  /** Reshapes the envelope before it is sent (joins related rows, renames); the envelope as is by default. */
  respond?(page: ListEnvelopeOf<Result>, request: FastifyRequest<{ Params: Static<Params> }>): Response | Promise<Response>;
}

/**
 * Registers `GET url` serving `list`: the list is named once, and both the
 * handler (`runListForRequest`) and the OpenAPI document (`config.listResource`)
 * take it from here. Nothing is added per request: the handler is the same
 * closure a hand-written route would hold.
 *
 * ```ts
 * listRoute(app, {
 *   url: '/admin/webhooks/deliveries',
 *   list: deliveriesList,
 *   schema: { operationId: 'adminListWebhookDeliveries', tags: ['admin'], response: { 200: AnyList } },
 *   base: () => db.selectFrom('webhook_deliveries').selectAll(),
 * });
 * ```
 */
export function listRoute<Row, Result, Params extends TSchema = TObject, Response = ListEnvelopeOf<Result>>(
  app: FastifyInstance,
  options: ListRouteOptions<Row, Result, Params, Response>,
): void {
  const { url, list, schema, preHandler, base, respond } = options;
  // Fastify refuses a preHandler key whose value is undefined: name it only when there is one.
  const guard = preHandler ? { preHandler } : {};
  app.get<{ Params: Static<Params> }>(
    url,
    { ...guard, schema, config: { listResource: list } },
    respond
      ? async (request, reply) => respond(await runListForRequest(request, list, await base(request, reply)), request)
      : async (request, reply) => runListForRequest(request, list, await base(request, reply)),
  );
}
