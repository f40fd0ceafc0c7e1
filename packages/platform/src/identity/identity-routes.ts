import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { consentScript } from './consent-script.js';
import { demoCallback } from './demo-callback.js';
import { loginPages } from './login-pages.js';
import { tokenEndpoint } from './token-endpoint.js';
import { wellKnownRoutes } from './well-known-routes.js';

/**
 * Routes of the identity capability; registered by buildApp in their own
 * encapsulated context, so the form parser below serves only the pages and the
 * token endpoint (SPEC-DECISIONS I2).
 */
export async function identityRoutes(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(loginPages);
  await app.register(tokenEndpoint);
  await app.register(wellKnownRoutes);
  await app.register(consentScript);
  if (app.platform.config.mode === 'sandbox') await app.register(demoCallback);
}
