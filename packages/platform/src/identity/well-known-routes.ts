import { SCOPE_NAMES } from '@feira/contract';
import type { FastifyInstance } from 'fastify';
import { documentedObject } from '../http/openapi-document.js';
import { OPENID_SCOPE } from './authorization-request.js';
import { SIGNING_ALG } from './signing-keys.js';

/**
 * RFC 8414 metadata, the same document as OpenID Connect Discovery 1.0 (spec-notes I14:
 * one document at both addresses, so either kind of client discovers the same provider),
 * and the JWKS (spec-notes I4).
 */
export async function wellKnownRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.platform;
  const metadata = {
    issuer: config.authUrl,
    authorization_endpoint: `${config.authUrl}/login`,
    token_endpoint: `${config.authUrl}/oauth/token`,
    userinfo_endpoint: `${config.authUrl}/userinfo`,
    jwks_uri: `${config.authUrl}/.well-known/jwks.json`,
    scopes_supported: [OPENID_SCOPE, ...SCOPE_NAMES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    // spec-notes I13: `none` is a public client (PKCE required).
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    // OpenID Connect Discovery §3: what an ID token is and says.
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'],
    // RFC 8414 §2: the revocation (RFC 7009) and introspection (RFC 7662) endpoints, each with its client authentication.
    revocation_endpoint: `${config.authUrl}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
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
    '/.well-known/openid-configuration',
    {
      schema: {
        operationId: 'getOpenIdConfiguration',
        tags: ['identity'],
        summary: 'OpenID Provider metadata (OpenID Connect Discovery 1.0): the same document as the RFC 8414 one',
        response: { 200: documentedObject('OpenID Connect Discovery 1.0 metadata') },
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
