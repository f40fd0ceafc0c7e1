import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { serveAsset } from './console-assets.js';
import type { ConsoleKit } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { operatorKeyRoutes } from './keys-console.js';
import { accountsPageOf, createSellerAccount, deleteClientApp, showAccounts } from './operator-accounts-console.js';
import {
  field,
  type IdRoute,
  idPageOptions,
  type OperatorFrame,
  operatorFrame,
  operatorPageOptions,
  type SellerStoreRoute,
  sellerStorePageOptions,
} from './operator-frame.js';
import { advanceSandboxClock, HEALTH_JS, healthPageOf, showHealth } from './operator-health-console.js';
import { operatorRateLimitRoutes } from './operator-rate-limit.js';
import {
  addSellerStore,
  deleteSellerAccount,
  deleteSellerStore,
  renameSellerStore,
  sellerPageOf,
  showSeller,
  storeChangeOf,
  updateSellerAccount,
} from './operator-seller-console.js';
import { signInOperator, signOutOperator } from './operator-session.js';
import {
  type OperatorDeliveryRoute,
  type OperatorStoreRoute,
  operatorDeliveryPageOptions,
  operatorStorePageOptions,
  showStoreDelivery,
  showStoreWebhooks,
} from './operator-store-console.js';

/**
 * The operator console at `/console/operator`: signed in with the
 * admin token turned into an operator session (operator-session.ts), it
 * creates, edits and deletes sellers, adds and renames stores, finds a store
 * or a delivery and reads a store's webhooks (operator-store-console.ts), sets client
 * apps' API rate limits (operator-rate-limit.ts) and deletes them (admin/account-changes.ts states what happens to tokens and
 * subscriptions), and charts the platform's health over the last hour from its
 * own tables. A seller's session never reaches it.
 */
async function operatorConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const operator = operatorFrame(kit);
  const { guard, page } = operator;
  const accountsPage = accountsPageOf(app, kit, operator);
  const sellerPage = sellerPageOf(app, kit, operator);
  const storeChange = storeChangeOf(kit, operator, sellerPage);
  const healthPage = healthPageOf(app, kit, operator);

  const operatorPageKit = {
    guard,
    page,
    seeOther: (reply: FastifyReply, location: string) => kit.seeOther(reply, location),
    csrfToken: (request: FastifyRequest, reply: FastifyReply) => kit.csrfToken(request, reply),
  };
  operatorRateLimitRoutes(app, operatorPageKit);
  operatorKeyRoutes(app, operatorPageKit);

  serveAsset(app, '/console/assets/health.js', 'text/javascript', HEALTH_JS);

  app.get('/console/operator', operatorPageOptions, showAccounts(operator, accountsPage));
  app.post('/console/operator/login', operatorPageOptions, signIn(kit, operator));
  app.post('/console/operator/logout', operatorPageOptions, signOut(kit));
  app.post('/console/operator/sellers', operatorPageOptions, createSellerAccount(app, kit, operator, accountsPage));
  app.get<IdRoute & { Querystring: Record<string, string | undefined> }>(
    '/console/operator/sellers/:id',
    idPageOptions,
    showSeller(operator, sellerPage),
  );
  app.post<IdRoute>('/console/operator/sellers/:id', idPageOptions, updateSellerAccount(app, kit, operator, sellerPage));
  app.post<IdRoute>('/console/operator/sellers/:id/delete', idPageOptions, deleteSellerAccount(app, kit, operator, sellerPage));
  app.post<IdRoute>('/console/operator/sellers/:id/stores', idPageOptions, addSellerStore(app, storeChange));
  app.post<SellerStoreRoute>(
    '/console/operator/sellers/:id/stores/:tenantId',
    sellerStorePageOptions,
    renameSellerStore(app, storeChange),
  );
  app.post<SellerStoreRoute>(
    '/console/operator/sellers/:id/stores/:tenantId/delete',
    sellerStorePageOptions,
    deleteSellerStore(app, kit, operator, sellerPage),
  );
  app.post<IdRoute>('/console/operator/clients/:id/delete', idPageOptions, deleteClientApp(app, kit, operator));
  app.get<OperatorStoreRoute>(
    '/console/operator/stores/:tenantId/webhooks',
    operatorStorePageOptions,
    showStoreWebhooks(app, operator),
  );
  app.get<OperatorDeliveryRoute>(
    '/console/operator/stores/:tenantId/webhooks/deliveries/:id',
    operatorDeliveryPageOptions,
    showStoreDelivery(app, operator),
  );
  app.get('/console/operator/health', operatorPageOptions, showHealth(operator, healthPage));
  app.post('/console/operator/clock', operatorPageOptions, advanceSandboxClock(app, kit, operator, healthPage));
}

/** Signs the operator in with the admin token (throttled as the seller sign-in is). */
function signIn(kit: ConsoleKit, operator: OperatorFrame) {
  const { signInPage } = operator;
  return async function signIn(request: FastifyRequest, reply: FastifyReply) {
    const t = requestTranslator(request);
    if (!csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf)) {
      return signInPage(request, reply, 403, t.text('login.error.expired'));
    }
    const result = await signInOperator(request, reply, field(request.body, 'token', 1024));
    if (result.kind === 'throttled') {
      reply.header('retry-after', String(result.retryAfterSeconds));
      return signInPage(request, reply, 429, t.text('login.error.throttled', { seconds: result.retryAfterSeconds }));
    }
    if (result.kind === 'wrong') return signInPage(request, reply, 401, t.text('operator.signin.wrong'));
    return kit.seeOther(reply, '/console/operator');
  };
}

/** Ends the operator session (a form with a stale token changes nothing) and goes back to the sign-in page. */
function signOut(kit: ConsoleKit) {
  return async function signOut(request: FastifyRequest, reply: FastifyReply) {
    if (csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf))
      await signOutOperator(request, reply);
    return kit.seeOther(reply, '/console/operator');
  };
}

export const operatorSection: ConsoleSection = {
  name: 'operator',
  routes: operatorConsoleRoutes,
};
