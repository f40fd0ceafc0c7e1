import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { findClientById } from '../accounts/index.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid } from '../identity/index.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import { connectedApps, disconnectApp } from './connected-apps.js';
import { type ConsoleKit, formBody, storePath, withNotice } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { appsView, disconnectConfirmation } from './console-views.js';

const AppParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

/** A store's connected apps: what each may do and when it last got a token; disconnecting one (I10). */
async function appsRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const { db } = app.platform.database;

  app.get<{ Params: { tenantId: string }; Querystring: { disconnected?: string } }>(
    '/console/stores/:tenantId/apps',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = requestTranslator(request);
      const apps = await connectedApps(db, found.seller.id, found.store.id);
      const gone = request.query.disconnected ? await findClientById(db, request.query.disconnected) : undefined;
      return kit.page(request, reply, t, found.seller, {
        title: t.text('apps.title', { store: found.store.name }),
        body: appsView(t, {
          store: found.store,
          nav: kit.storeNav(t, found.store.id, 'apps'),
          apps,
          csrf: kit.csrfToken(request, reply),
          disconnected: gone?.name ?? null,
        }),
      });
    },
  );

  app.post<{ Params: { tenantId: string; id: string } }>(
    '/console/stores/:tenantId/apps/:id/disconnect',
    { schema: { hide: true, params: AppParams } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const back = storePath(found.store.id, '/apps');
      if (!csrfTokenValid(request, formBody(request).csrf)) return kit.seeOther(reply, withNotice(back, 'expired'));
      const apps = await connectedApps(db, found.seller.id, found.store.id);
      const gone = apps.find((a) => a.clientId === request.params.id);
      if (!gone) return kit.notFoundPage(request, reply, found.seller);
      if (!isConfirmed(request.body)) {
        // Without JavaScript the button lands here: the dialog's question on a page (D69).
        const t = requestTranslator(request);
        return kit.page(request, reply, t, found.seller, {
          title: t.text('confirm.title'),
          body: confirmationView(t, {
            confirm: disconnectConfirmation(t, gone.name, found.store.name),
            action: `${back}/${encodeURIComponent(gone.clientId)}/disconnect`,
            csrf: kit.csrfToken(request, reply),
            back,
          }),
        });
      }
      await disconnectApp(
        db,
        { sellerId: found.seller.id, tenantId: found.store.id, clientId: request.params.id },
        request.server.platform.clock.now(),
      );
      return kit.seeOther(reply, `${back}?disconnected=${encodeURIComponent(request.params.id)}`);
    },
  );
}

export const appsSection: ConsoleSection = {
  name: 'apps',
  nav: { slug: 'apps', label: 'console.nav.apps' },
  routes: appsRoutes,
};
