import type { FastifyInstance } from 'fastify';

/** Where `/` leads: the console for a person, the documents for a program. */
const ROOT_LINKS = {
  console: '/console',
  operator_console: '/console/operator',
  docs: '/docs',
  openapi: '/openapi.json',
  health: '/health',
} as const;

/**
 * `GET /`: a browser (it asks for text/html) is sent to the console; anything
 * else gets the same places as JSON. Before, `/` was a JSON 404, the first
 * thing a newcomer who opened the sandbox's address saw.
 */
export async function rootRoute(app: FastifyInstance): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect(ROOT_LINKS.console, 302);
    return { name: 'Feira', links: ROOT_LINKS };
  });
}
