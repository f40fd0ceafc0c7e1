import cookie from '@fastify/cookie';
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
  await app.register(browserPages);
  await app.register(tokenEndpoint);
  await app.register(wellKnownRoutes);
  await app.register(consentScript);
}

/**
 * The pages a seller's browser uses, the only routes with cookies (the login
 * session and CSRF token, the demo callback's result). The cookie plugin is
 * registered here rather than on the whole app: its parse and onSend hooks cost
 * every API call (7 % of a token exchange's CPU profile) and no API reads a cookie.
 */
async function browserPages(app: FastifyInstance): Promise<void> {
  await app.register(cookie, { secret: app.platform.config.secretKey });
  await app.register(loginPages);
  if (app.platform.config.mode === 'sandbox') await app.register(demoCallback);
}
