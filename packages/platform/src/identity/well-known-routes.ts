import { SCOPE_NAMES } from '@feira/contract';
import type { FastifyInstance } from 'fastify';
import { documentedObject } from '../http/openapi-document.js';

/** RFC 8414 metadata and the JWKS (spec-notes I4). */
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
    // RFC 8414 §2: the revocation (RFC 7009) and introspection (RFC 7662) endpoints, each with its client authentication.
    revocation_endpoint: `${config.authUrl}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint: `${config.authUrl}/oauth/introspect`,
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    // RFC 9207 §3: every authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    code_challenge_methods_supported: ['S256'],
    service_documentation: `${config.publicUrl}/docs`,
  };

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        operationId: 'getAuthorizationServerMetadata',
        tags: ['identity'],
        summary: 'Authorization server metadata (RFC 8414)',
        response: { 200: documentedObject('RFC 8414 metadata') },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(metadata),
  );

  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        operationId: 'getJwks',
        tags: ['identity'],
        summary: 'Public keys that verify Feira tokens (current and previous)',
        response: { 200: documentedObject('A JWK set (RFC 7517)') },
      },
    },
    async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send({
        keys: app.identity.keyRing.jwks.keys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use })),
      }),
  );
}
