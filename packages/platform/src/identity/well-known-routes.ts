import { SCOPE_NAMES } from '@feira/contract';
import type { FastifyInstance } from 'fastify';

/** RFC 8414 metadata and the JWKS (SPEC-DECISIONS I4). */
export async function wellKnownRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.platform;
  const metadata = {
    issuer: config.authUrl,
    authorization_endpoint: `${config.authUrl}/login`,
    token_endpoint: `${config.authUrl}/oauth/token`,
    jwks_uri: `${config.authUrl}/.well-known/jwks.json`,
    scopes_supported: SCOPE_NAMES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    service_documentation: `${config.publicUrl}/docs`,
  };

  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: { tags: ['identity'], summary: 'Authorization server metadata (RFC 8414)' } },
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(metadata),
  );

  app.get(
    '/.well-known/jwks.json',
    { schema: { tags: ['identity'], summary: 'Public keys that verify Feira tokens (current and previous)' } },
    async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send({
        keys: app.platform.keyRing.jwks.keys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use })),
      }),
  );
}
