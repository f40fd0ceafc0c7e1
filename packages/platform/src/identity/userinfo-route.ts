import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refuseField } from '../core/refusals.js';
import { documentedObject } from '../http/openapi-document.js';
import { admittedAccessToken } from './access-token-guard.js';
import { OPENID_SCOPE } from './authorization-request.js';

/**
 * `GET|POST /userinfo` (OpenID Connect Core §5.3, spec-notes I14): the claims about the
 * seller for an access token granted with `openid`. Only `sub`: Feira asks no consent for
 * more (no `profile` or `email` scope), so it tells the app nothing the token does not.
 */
export async function userinfoRoute(app: FastifyInstance): Promise<void> {
  const schema = {
    operationId: 'getUserInfo',
    tags: ['identity'],
    summary: 'OpenID Connect UserInfo: the signed-in seller (`sub`), for a token granted with the openid scope',
    security: [{ feiraOAuth: [] }],
    response: {
      200: documentedObject('`{"sub": seller id}`'),
      401: { $ref: 'PlatformError#', description: 'No valid access token (RFC 6750 challenge in WWW-Authenticate)' },
      403: { $ref: 'PlatformError#', description: 'The token was not granted the openid scope (insufficient_scope)' },
      429: { $ref: 'PlatformError#', description: 'The app is over its API rate limit for this seller (spec-notes I20)' },
    },
  };
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // spec-notes I20: a UserInfo call acts for no store (a personal token has none): the app's bucket for its seller.
    const { claims } = await admittedAccessToken(request, reply, (signed) => `seller:${signed.sub}`);
    if (!claims.scope.split(' ').includes(OPENID_SCOPE)) {
      throw refuseField('IDENTITY_OPENID_SCOPE_MISSING', 'scope', 'header', { scope: OPENID_SCOPE });
    }
    return reply.header('cache-control', 'no-store').send({ sub: claims.sub });
  };
  app.get('/userinfo', { schema }, handler);
  // Core §5.3 asks for POST too; the document shows the GET, the same operation.
  app.post('/userinfo', { schema: { ...schema, hide: true } }, handler);
}
