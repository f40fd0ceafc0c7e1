import type { ListEnvelopeOf } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import { runList } from '../lists/list-engine.js';
import {
  type AnyRecordList,
  RECORD_SEARCH_MAX_LENGTH,
  type RegisteredRecordKind,
  recordSearchFields,
  recordSearchTerm,
  searchStoreRecords,
  storeRecordsQuery,
} from '../records/index.js';
import { type ConsoleKit, refusalText } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { fieldLabel, listQueryOf, type RecordSearchView, recordsView } from './records-views.js';

const KindParams = Type.Object({
  tenantId: Type.String({ minLength: 1, maxLength: 64 }),
  table: Type.String({ minLength: 1, maxLength: 64 }),
});
/** Records a search shows at most (D155): a search names one record, or a few; more says to type more. */
const SEARCH_LIMIT = 50;

type KindRequest = FastifyRequest<{
  Params: { tenantId: string; table: string };
  Querystring: Record<string, string | undefined>;
}>;
type Platform = FastifyInstance['platform'];

/**
 * The console's records: each kind of the store's records in a
 * table driven by the same list engine as the seller API (filters, sort,
 * cursor pagination: the page's query string is the API's), each row opening
 * its JSON as the API returns it; and a search by id, code or the kind's other
 * indexed fields (D155).
 */
async function recordsConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  app.get<{ Params: { tenantId: string } }>(
    '/console/stores/:tenantId/records',
    { schema: { hide: true, params: StoreParams } },
    firstKind(app, kit),
  );
  app.get<{ Params: { tenantId: string; table: string }; Querystring: Record<string, string | undefined> }>(
    '/console/stores/:tenantId/records/:table',
    { schema: { hide: true, params: KindParams } },
    showRecords(app.platform, app.recordKinds.kinds, kit),
  );
}

/** The records section opens on orders (or the registry's first kind). */
function firstKind(app: FastifyInstance, kit: ConsoleKit) {
  const table = app.recordKinds.find('orders')?.table ?? app.recordKinds.kinds[0]?.table;
  return async function firstKind(request: FastifyRequest<{ Params: { tenantId: string } }>, reply: FastifyReply) {
    return kit.seeOther(reply, `/console/stores/${encodeURIComponent(request.params.tenantId)}/records/${table}`);
  };
}

/** One page of a kind's list, or the refusal of its query in the page's language. */
async function listPage(
  platform: Platform,
  t: Translator,
  kind: RegisteredRecordKind,
  input: { tenantId: string; query: Record<string, string>; url: string },
): Promise<{ page: ListEnvelopeOf<Record<string, unknown>> | null; error: PlatformError | null; text: string | null }> {
  try {
    const page = (await runList(
      kind.list as AnyRecordList,
      storeRecordsQuery(platform.database.db, kind, input.tenantId),
      { query: { _paginate: 'cursor', ...input.query }, url: input.url },
      platform.config,
    )) as ListEnvelopeOf<Record<string, unknown>>;
    return { page, error: null, text: null };
  } catch (caught) {
    if (!(caught instanceof PlatformError)) throw caught;
    const text = refusalText(t, caught, (field) =>
      field === '_next_token' ? t.text('records.error.page') : fieldLabel(t, field.replace(/__.*$/, ''), kind),
    );
    return { page: null, error: caught, text };
  }
}

/** A kind's records page: its list (filters, sort, cursor), or what a search (`?q=`) finds. */
function showRecords(platform: Platform, kinds: readonly RegisteredRecordKind[], kit: ConsoleKit) {
  return async function showRecords(request: KindRequest, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const t = requestTranslator(request);
    const kind = kinds.find((k) => k.table === request.params.table);
    if (!kind) return kit.notFoundPage(request, reply, found.seller);
    const { shown, engine } = listQueryOf(request.query);
    const search: RecordSearchView = {
      // A repeated `q` arrives as a list: refused below, shown as nothing.
      raw: typeof shown.q === 'string' ? shown.q.slice(0, RECORD_SEARCH_MAX_LENGTH) : '',
      fields: recordSearchFields(kind),
      found: null,
      invalid: false,
    };
    let page: ListEnvelopeOf<Record<string, unknown>> | null = null;
    let error: string | null = null;
    if (shown.q !== undefined) {
      const term = recordSearchTerm(shown.q);
      if (term === null) {
        search.invalid = true;
        reply.code(422);
      } else {
        search.raw = term;
        search.found = await searchStoreRecords(platform.database.db, kind, found.store.id, term, SEARCH_LIMIT);
      }
    } else {
      const listed = await listPage(platform, t, kind, { tenantId: found.store.id, query: engine, url: request.url });
      ({ page, text: error } = listed);
      if (listed.error) reply.code(listed.error.statusCode);
    }
    return kit.page(request, reply, t, found.seller, {
      status: reply.statusCode,
      title: t.text('records.title', { store: found.store.name }),
      body: recordsView(t, {
        store: found.store,
        nav: kit.storeNav(t, found.store.id, 'records'),
        kind,
        kinds,
        page,
        error,
        query: shown,
        search,
      }),
    });
  };
}

export const recordsSection: ConsoleSection = {
  name: 'records',
  nav: { slug: 'records', label: 'console.nav.records' },
  routes: recordsConsoleRoutes,
};
