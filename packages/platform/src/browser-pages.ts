import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { consoleRoutes } from './console/console-routes.js';
import type { ConsoleSection } from './console/console-section.js';
import { demoCallback } from './demo/demo-callback.js';
import { languageRoute } from './i18n/language-route.js';
import { loginPages } from './identity/index.js';

export interface BrowserPagesOptions {
  /** The console's sections, in navigation order (default: the platform's, console/console-sections.ts). */
  consoleSections?: readonly ConsoleSection[] | undefined;
}

/**
 * Every page a browser opens, mounted in one encapsulated context: the
 * identity provider's login and consent pages, the language switch, the seller
 * console and, in the sandbox, the demo client's callback. They share the
 * login session and its CSRF token, so a seller signed in for a consent flow
 * is signed in to the console too. These are the only routes with cookies:
 * the cookie plugin is registered here rather than on the whole app, as its
 * parse and onSend hooks would cost every API call and no API reads a cookie
 * (docs/decisions.md D24).
 */
export async function browserPages(app: FastifyInstance, options: BrowserPagesOptions): Promise<void> {
  const { secretKey, previousSecretKeys = [], mode } = app.platform.config;
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // A cookie signed under a previous server secret still reads while it is kept (D112); new ones sign with the current one.
  await app.register(cookie, { secret: previousSecretKeys.length > 0 ? [secretKey, ...previousSecretKeys] : secretKey });
  await app.register(loginPages);
  await app.register(languageRoute);
  await app.register(consoleRoutes(options.consoleSections));
  if (mode === 'sandbox') await app.register(demoCallback);
}
