import Fastify, { type FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { platformErrorHandler } from '../../http/error-handler.js';
import { requireAccessToken } from '../access-token-guard.js';
import type { IdentityServices } from '../identity-services.js';

/**
 * A stand-in platform API for identity tests: one route behind the real
 * access-token guard, on the same platform context (database, signer, clock).
 * Answers the resolved seller context.
 */
export async function guardProbe(platform: IdentityServices, scope: Parameters<typeof requireAccessToken>[0] = null) {
  const app: FastifyInstance = Fastify();
  app.decorate('platform', platform);
  app.decorate('identity', platform);
  app.decorateRequest('seller', null);
  app.setErrorHandler(platformErrorHandler);
  app.get('/probe', { preHandler: requireAccessToken(scope) }, async (request) => ({
    sellerId: request.seller?.sellerId,
    tenantId: request.seller?.tenantId,
    scopes: [...(request.seller?.scopes ?? [])],
  }));
  await app.ready();
  return {
    app,
    /** The status an API answers for this token, acting for its first tenant. */
    async status(accessToken: string): Promise<number> {
      let tenant: string | undefined;
      try {
        tenant = (decodeJwt(accessToken).tenants as string[] | undefined)?.[0];
      } catch {
        tenant = undefined;
      }
      const res = await app.inject({
        method: 'GET',
        url: '/probe',
        headers: { authorization: `Bearer ${accessToken}`, ...(tenant ? { 'x-tenant-id': tenant } : {}) },
      });
      return res.statusCode;
    },
  };
}
