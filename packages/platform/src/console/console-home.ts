import type { FastifyInstance } from 'fastify';
import { requestTranslator } from '../i18n/i18n.js';
import { checkCredentials, csrfTokenValid, endSession, startSession } from '../identity/index.js';
import { type ConsoleKit, formBody, safeConsolePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { storesView } from './console-views.js';

/**
 * The console's front door: the seller's sign-in (the identity provider's
 * session and check), sign-out and the list of their stores.
 */
async function homeRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (request, reply) => {
    const seller = await kit.signedIn(request);
    if (!seller) return kit.loginPage(request, reply);
    const t = requestTranslator(request);
    return kit.page(request, reply, t, seller, { title: t.text('console.stores.title'), body: storesView(t, seller.tenants) });
  });

  app.post('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const body = formBody(request);
    const t = requestTranslator(request);
    // The page the seller asked for before signing in (a console path only, D68).
    const next = safeConsolePath(body.next);
    const back = next ? { next } : {};
    if (!csrfTokenValid(request, body.csrf))
      return kit.loginPage(request, reply, { status: 403, error: t.text('login.error.expired'), ...back });
    const login = typeof body.login === 'string' ? body.login.trim().slice(0, 256) : '';
    const password = typeof body.password === 'string' ? body.password : '';
    if (!login || !password || password.length > 1024) {
      return kit.loginPage(request, reply, { status: 422, login, error: t.text('login.error.missing'), ...back });
    }
    // The same check as the identity provider's login form: one throttle, one back-off per account.
    const checked = await checkCredentials(request.server.identity, { login, password, address: request.ip });
    if (checked.kind === 'wrong')
      return kit.loginPage(request, reply, { status: 401, login, error: t.text('login.error.incorrect'), ...back });
    if (checked.kind !== 'ok') {
      reply.header('retry-after', String(checked.retryAfterSeconds));
      const error =
        checked.kind === 'busy'
          ? t.text('login.error.busy')
          : t.text('login.error.throttled', { seconds: checked.retryAfterSeconds });
      return kit.loginPage(request, reply, { status: 429, login, error, ...back });
    }
    await startSession(request, reply, checked.seller.id);
    return kit.seeOther(reply, next ?? '/console');
  });

  app.post('/console/logout', { schema: { hide: true } }, async (request, reply) => {
    if (csrfTokenValid(request, formBody(request).csrf)) await endSession(request, reply);
    return kit.seeOther(reply, '/console');
  });
}

export const homeSection: ConsoleSection = { name: 'home', routes: homeRoutes };
