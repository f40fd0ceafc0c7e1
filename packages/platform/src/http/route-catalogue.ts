import type { FastifyInstance, RouteOptions } from 'fastify';

/** What the catalogue keeps of a route: what it accepts and answers, as registered. */
export type CataloguedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config' | 'preHandler' | 'bodyLimit'> & {
  /** A shared schema by its `$id` as the route sees it (its plugin's, or an ancestor's): what a `Type.Ref` in its schema names. */
  sharedSchema(id: string): unknown;
};

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app as registered (HEAD routes Fastify adds included), in order. */
    readonly routeCatalogue: readonly CataloguedRoute[];
  }
}

/**
 * Keeps every route registered after it, from any plugin (an onRoute hook on
 * the root reaches every child context). The route-vs-document test walks it
 * to compare each route's real schema with its OpenAPI operation, so the
 * document cannot drift from what the routes take and answer.
 */
export function installRouteCatalogue(app: FastifyInstance): void {
  const routes: CataloguedRoute[] = [];
  app.decorate('routeCatalogue', routes);
  app.addHook('onRoute', function catalogue(this: FastifyInstance, route) {
    const { method, url, schema, config, preHandler, bodyLimit } = route;
    // `this` is the plugin instance the route is registered in: its shared schemas are the ones the route resolves.
    routes.push({ method, url, schema, config, preHandler, bodyLimit, sharedSchema: (id) => this.getSchema(id) });
  });
}
