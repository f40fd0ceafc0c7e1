import type { ListEnvelopeOf } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { requestTranslator } from '../i18n/i18n.js';
import { runList } from '../lists/list-engine.js';
import { type AnyRecordList, storeRecordsQuery } from '../records/index.js';
import { type ConsoleKit, refusalText } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { fieldLabel, listQueryOf, recordsView } from './records-views.js';

/**
 * The console's records: each kind of the store's records in a
 * table driven by the same list engine as the seller API (filters, sort,
 * cursor pagination: the page's query string is the API's), each row opening
 * its JSON as the API returns it.
 */
async function recordsConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const { db } = app.platform.database;
  const StoreParams = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) });
  const KindParams = Type.Object({
    tenantId: Type.String({ minLength: 1, maxLength: 64 }),
    table: Type.String({ minLength: 1, maxLength: 64 }),
  });

  app.get<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/records',
    { schema: { hide: true, params: StoreParams } },
    async (request, reply) =>
      kit.seeOther(
        reply,
        `/console/stores/${encodeURIComponent(request.params.tenantId)}/records/${app.recordKinds.find('orders')?.table ?? app.recordKinds.kinds[0]?.table}`,
      ),
  );

  app.get<{ Params: { tenantId: string; table: string }; Querystring: Record<string, string | undefined> }>(
    '/console/stores/:tenantId/records/:table',
    { schema: { hide: true, params: KindParams } },
    async (
      request: FastifyRequest<{ Params: { tenantId: string; table: string }; Querystring: Record<string, string | undefined> }>,
      reply: FastifyReply,
    ) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = requestTranslator(request);
      const kind = app.recordKinds.find(request.params.table);
      if (!kind) {
        return kit.page(request, reply.code(404), t, found.seller, {
          status: 404,
          title: t.text('console.notFound.title'),
          body: `<h1>${t.html('console.notFound.title')}</h1><p>${t.html('console.notFound.text')}</p>`,
        });
      }
      const { shown, engine: query } = listQueryOf(request.query);
      let page: ListEnvelopeOf<Record<string, unknown>> | null = null;
      let error: string | null = null;
      try {
        page = (await runList(
          kind.list as AnyRecordList,
          storeRecordsQuery(db, kind, found.store.id),
          { query: { _paginate: 'cursor', ...query }, url: request.url },
          app.platform.config,
        )) as ListEnvelopeOf<Record<string, unknown>>;
      } catch (caught) {
        if (!(caught instanceof PlatformError)) throw caught;
        error = refusalText(t, caught, (field) =>
          field === '_next_token' ? t.text('records.error.page') : fieldLabel(t, field.replace(/__.*$/, ''), kind),
        );
        reply.code(caught.statusCode);
      }
      return kit.page(request, reply, t, found.seller, {
        status: reply.statusCode,
        title: t.text('records.title', { store: found.store.name }),
        body: recordsView(t, {
          store: found.store,
          nav: kit.storeNav(t, found.store.id, 'records'),
          kind,
          kinds: app.recordKinds.kinds,
          page,
          error,
          query: shown,
        }),
      });
    },
  );
}

export const recordsSection: ConsoleSection = {
  name: 'records',
  nav: { slug: 'records', label: 'console.nav.records' },
  routes: recordsConsoleRoutes,
};
