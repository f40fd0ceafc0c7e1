import type { FastifyReply } from 'fastify';

/**
 * Pages that show a secret (a webhook signing secret, a token set): the route
 * options that keep such an answer out of every compressor, and the check the
 * console's own page compressor makes (D98). A compressed answer whose body
 * holds a secret beside anything the request chose is a compression oracle
 * (BREACH): its length tells a guess that matches the secret from one that
 * does not. So these answers go out as they are, never stored
 * (`Cache-Control: no-store`), and their views take no request input.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's answer may show a secret (http/secret-page.ts): never compressed, never stored. */
    secretPage?: boolean;
  }
}

export const SECRET_PAGE_ROUTE = { compress: false, config: { secretPage: true } } as const;

/** True when the reply's route was registered with {@link SECRET_PAGE_ROUTE}. */
export function servesSecrets(reply: FastifyReply): boolean {
  return reply.routeOptions.config?.secretPage === true;
}

/**
 * Marks an answer that shows a secret: never cached. Throws when the route was
 * not registered with {@link SECRET_PAGE_ROUTE}, so a new secret page cannot
 * forget to stay uncompressed.
 */
export function secretAnswer(reply: FastifyReply): FastifyReply {
  if (!servesSecrets(reply)) throw new Error('A secret is shown only by a route registered with SECRET_PAGE_ROUTE');
  return reply.header('cache-control', 'no-store');
}
