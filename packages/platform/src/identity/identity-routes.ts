import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { consentScript } from './consent-script.js';
import { tokenEndpoint } from './token-endpoint.js';
import { tokenLookupEndpoints } from './token-lookup-endpoints.js';
import { userinfoRoute } from './userinfo-route.js';
import { wellKnownRoutes } from './well-known-routes.js';

/**
 * The identity capability's API routes; registered by buildApp in their own
 * encapsulated context, so the form parser below serves only the token
 * endpoints (spec-notes I2). Its browser pages (login-pages.ts) are mounted
 * with the other pages by browser-pages.ts.
 */
export async function identityRoutes(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(tokenEndpoint);
  await app.register(tokenLookupEndpoints);
  await app.register(wellKnownRoutes);
  await app.register(userinfoRoute);
  await app.register(consentScript);
}
