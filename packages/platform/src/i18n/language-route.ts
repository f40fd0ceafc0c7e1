import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isLocale, rememberLocale, safeReturnPath } from './i18n.js';

/**
 * GET /lang?to=pt-BR&back=/login?… — the visible language switch of every page:
 * remembers the choice in a cookie and goes back (303) to a same-site path.
 * Only a display preference changes, nothing of the account, so it is a link.
 */
export async function languageRoute(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { to: string; back?: string } }>(
    '/lang',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          to: Type.String({ maxLength: 16 }),
          back: Type.Optional(Type.String({ maxLength: 4096 })),
        }),
      },
    },
    async (request, reply) => {
      if (isLocale(request.query.to)) rememberLocale(request, reply, request.query.to);
      return reply
        .code(303)
        .header('location', safeReturnPath(request.query.back))
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send();
    },
  );
}
