import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { consentScript } from './consent-script.js';
import { loginPages } from './login-pages.js';
import { tokenEndpoint } from './token-endpoint.js';
import { tokenLookupEndpoints } from './token-lookup-endpoints.js';
import { userinfoRoute } from './userinfo-route.js';
import { wellKnownRoutes } from './well-known-routes.js';

export interface IdentityRoutesOptions {
  /** More browser pages that share the login cookie and CSRF token (the sandbox's demo callback, wired by app.ts). */
  pages?: FastifyPluginAsync[];
}

/**
 * Routes of the identity capability; registered by buildApp in their own
 * encapsulated context, so the form parser below serves only the pages and the
 * token endpoint (spec-notes I2).
 */
export async function identityRoutes(app: FastifyInstance, options: IdentityRoutesOptions): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(browserPages, options);
  await app.register(tokenEndpoint);
  await app.register(tokenLookupEndpoints);
  await app.register(wellKnownRoutes);
  await app.register(userinfoRoute);
  await app.register(consentScript);
}

/**
 * The pages a seller's browser uses, the only routes with cookies (the login
 * session and CSRF token, the demo callback's result). The cookie plugin is
 * registered here rather than on the whole app: its parse and onSend hooks cost
 * every API call and no API reads a cookie (docs/decisions.md D24).
 */
async function browserPages(app: FastifyInstance, options: IdentityRoutesOptions): Promise<void> {
  // A cookie signed under a previous server secret still reads while it is kept (D112); new ones sign with the current one.
  const { secretKey, previousSecretKeys = [] } = app.platform.config;
  await app.register(cookie, { secret: previousSecretKeys.length > 0 ? [secretKey, ...previousSecretKeys] : secretKey });
  await app.register(loginPages);
  for (const page of options.pages ?? []) await app.register(page);
}
