import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { listTenantsOfSeller } from '../accounts/index.js';
import { refuse, refuseField } from '../core/refusals.js';
import { documentedList, documentedObject, errorResponse } from '../http/openapi-document.js';
import { StoreParams } from '../http/route-params.js';
import { requestTranslator } from '../i18n/i18n.js';
import { csrfTokenValid, sessionSellerId } from '../identity/index.js';
import { listRoute } from '../lists/list-route.js';
import { outboundPolicyOf } from '../outbound/address-policy.js';
import { firstProductSkus } from '../records/index.js';
import {
  checkQuoteUrl,
  DEFAULT_SKUS,
  DEFAULT_ZIPCODE,
  deleteFreightTable,
  findShippingSettings,
  freightTablesOf,
  isQuoteWindow,
  newestStoreQuoteCalls,
  QUOTE_WINDOWS,
  type QuoteCallRecord,
  type QuoteCheckReport,
  type QuoteWindow,
  quoteCallList,
  quoteCallsOf,
  quoteStats,
  quoteTestRecorder,
  runQuoteCheck,
} from '../shipping/index.js';
import type { Database } from '../storage/database.js';
import { confirmationView, isConfirmed } from './confirm-views.js';
import { serveAsset } from './console-assets.js';
import { type ConsoleKit, withNotice } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { deleteTableConfirmation, shippingView } from './shipping-views.js';

/** Calls per "Test my endpoint" beyond the edge cases: enough for a p50/p99, at most ~12 s. */
const TEST_REPEAT = 5;

type StorePageRequest = { Params: { tenantId: string }; Querystring: Record<string, string | undefined> };
type TablePageRequest = { Params: { tenantId: string; tableId: string } };
type QuoteStatsRequest = { Querystring: { tenant_id: string; window?: string } };

const OUTCOME_FILTERS = ['ok', 'failed'] as const;

/**
 * The console's shipping page: the store's quote methods and
 * settings, "Test my endpoint" (the platform's conformance check against the
 * configured seller API, with the platform's own outbound guard), the quote
 * log with filters and a chart of latency and outcomes; and the seller API
 * the page reads, usable with the console session.
 */
async function shippingConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  // One test per store at a time: a test makes a dozen calls to the seller's server.
  const testing = new Set<string>();
  const renderPage = shippingPage(app, kit);
  // uPlot (minified) and its stylesheet are console-assets.ts's, beside the chart module that imports it.
  serveAsset(app, '/console/assets/shipping.js', 'text/javascript', SHIPPING_JS);
  app.get<StorePageRequest>('/console/stores/:tenantId/shipping', storePageOptions, showShippingPage(renderPage));
  app.post<StorePageRequest>(
    '/console/stores/:tenantId/shipping/test',
    storePageOptions,
    testEndpoint(app, kit, renderPage, testing),
  );
  app.post<TablePageRequest>(
    '/console/stores/:tenantId/shipping/freight-tables/:tableId/delete',
    deleteTableOptions,
    deleteTable(app, kit),
  );
  listRoute(app, quoteCallListOptions(app));
  app.get<QuoteStatsRequest>('/seller/v1/shipping/quote-stats', quoteStatsOptions, getQuoteStats(app));
}

type ShippingPage = (
  request: FastifyRequest<StorePageRequest>,
  reply: FastifyReply,
  report: QuoteCheckReport | null,
  testError: string | null,
) => Promise<FastifyReply>;

/** The shipping page of the store in the path, with a test's report or refusal if there is one. */
function shippingPage(app: FastifyInstance, kit: ConsoleKit): ShippingPage {
  const platform = app.platform;
  return async function renderPage(
    request: FastifyRequest<StorePageRequest>,
    reply: FastifyReply,
    report: QuoteCheckReport | null,
    testError: string | null,
  ) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const t = requestTranslator(request);
    const window: QuoteWindow = isQuoteWindow(request.query.window) ? request.query.window : '1h';
    const outcome = OUTCOME_FILTERS.find((o) => o === request.query.outcome) ?? null;
    await app.shipping.quoteLog.flush();
    const log = await app.shipping.quoteLog.store.reader();
    const now = platform.clock.now();
    const [settings, rows, stats, tables] = await Promise.all([
      findShippingSettings(platform.database, found.store.id, app.shipping.quoteMethods),
      newestStoreQuoteCalls(log, {
        tenantId: found.store.id,
        sinceIso: new Date(now.getTime() - QUOTE_WINDOWS[window].ms).toISOString(),
        outcome,
        limit: 50,
      }),
      quoteStats(log, found.store.id, now, window),
      freightTablesOf(platform.database, [found.store.id]),
    ]);
    return kit.page(request, reply, t, found.seller, {
      title: t.text('shipping.title', { store: found.store.name }),
      scripts: ['/console/assets/shipping.js'],
      styles: ['/console/assets/uplot.css'],
      body: shippingView(t, {
        store: found.store,
        nav: kit.storeNav(t, found.store.id, 'shipping'),
        settings: settings ?? null,
        methodLabel: (method) => app.shipping.quoteMethods.get(method).labelKey,
        freightTables: tables.map((table) => ({
          id: table.table_id,
          name: table.name,
          distributionCenterId: table.distribution_center_id,
          rows: Number(table.row_count),
          updatedAt: table.updated_at,
        })),
        freightUse: settings?.methods.includes('freight_table') ? 'method' : settings?.fallback ? 'fallback' : 'unused',
        uploaded: typeof request.query.uploaded === 'string' ? request.query.uploaded.slice(0, 32) : null,
        calls: rows as QuoteCallRecord[],
        stats,
        window,
        outcome,
        csrf: kit.csrfToken(request, reply),
        report,
        testError,
        testCalls: 7 + TEST_REPEAT,
      }),
    });
  };
}

/** A store's shipping page and its endpoint test: the store named in the path. */
const storePageOptions: RouteShorthandOptions = { schema: { hide: true, params: StoreParams } };

/** The shipping page as it stands: no test run. */
function showShippingPage(renderPage: ShippingPage) {
  return function showShippingPage(request: FastifyRequest<StorePageRequest>, reply: FastifyReply) {
    return renderPage(request, reply, null, null);
  };
}

/** "Test my endpoint": the conformance check against the store's seller API, one at a time per store. */
function testEndpoint(app: FastifyInstance, kit: ConsoleKit, renderPage: ShippingPage, testing: Set<string>) {
  const platform = app.platform;
  const { db } = platform.database;
  return async function testEndpoint(request: FastifyRequest<StorePageRequest>, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const back = `/console/stores/${encodeURIComponent(found.store.id)}/shipping`;
    if (!csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf))
      return kit.seeOther(reply, withNotice(back, 'expired'));
    const t = requestTranslator(request);
    const settings = await findShippingSettings(platform.database, found.store.id, app.shipping.quoteMethods);
    if (!settings?.url) return renderPage(request, reply.code(409), null, t.text('shipping.test.noUrl'));
    if (testing.has(found.store.id)) return renderPage(request, reply.code(429), null, t.text('shipping.test.busy'));
    testing.add(found.store.id);
    try {
      let target: Awaited<ReturnType<typeof checkQuoteUrl>>;
      try {
        target = await checkQuoteUrl(settings.url, outboundPolicyOf(platform.config));
      } catch (error) {
        const detail = (error as { details?: Array<{ message: string }> }).details?.[0]?.message ?? '';
        return renderPage(request, reply.code(422), null, t.text('shipping.test.badUrl', { detail }));
      }
      // SKUs the store sells, so a seller that checks them can answer; the demo's otherwise.
      const skus = await firstProductSkus(db, found.store.id, 3);
      const report = await runQuoteCheck(platform.outbound, target, settings.url, {
        zipcode: DEFAULT_ZIPCODE,
        sku: skus.length > 0 ? skus : DEFAULT_SKUS,
        invalidZipcode: '00000000',
        distributionCenter: settings.distributionCenterIds,
        repeat: TEST_REPEAT,
        keepBody: 2000,
        record: quoteTestRecorder(app.shipping, found.store.id),
      });
      return renderPage(request, reply, report, null);
    } finally {
      testing.delete(found.store.id);
    }
  };
}

/** The removal of a freight table from the shipping page (a POST, confirmed). */
const deleteTableOptions: RouteShorthandOptions = {
  schema: {
    hide: true,
    params: Type.Object({
      tenantId: Type.String({ minLength: 1, maxLength: 64 }),
      tableId: Type.String({ minLength: 1, maxLength: 32 }),
    }),
  },
};

/** Removes a freight table once confirmed; without JavaScript, asks first on a page of its own. */
function deleteTable(app: FastifyInstance, kit: ConsoleKit) {
  const platform = app.platform;
  return async function deleteTable(request: FastifyRequest<TablePageRequest>, reply: FastifyReply) {
    const found = await kit.storeOf(request, reply, request.params.tenantId);
    if (!found) return reply;
    const back = `/console/stores/${encodeURIComponent(found.store.id)}/shipping`;
    if (!csrfTokenValid(request, (request.body as Record<string, unknown> | undefined)?.csrf))
      return kit.seeOther(reply, withNotice(`${back}#freight`, 'expired'));
    if (!isConfirmed(request.body)) {
      // Without JavaScript the button lands here: the dialog's question on a page (D69).
      const t = requestTranslator(request);
      return kit.page(request, reply, t, found.seller, {
        title: t.text('confirm.title'),
        body: confirmationView(t, {
          confirm: deleteTableConfirmation(t, request.params.tableId),
          action: `${back}/freight-tables/${encodeURIComponent(request.params.tableId)}/delete`,
          csrf: kit.csrfToken(request, reply),
          back: `${back}#freight`,
        }),
      });
    }
    await deleteFreightTable(platform.database, found.store.id, request.params.tableId);
    return kit.seeOther(reply, withNotice(`${back}#freight`, 'freightDeleted'));
  };
}

/** The stores of the console session's seller; a 401 without one. */
async function sessionTenants(db: Database['db'], request: FastifyRequest): Promise<string[]> {
  const sellerId = await sessionSellerId(request);
  if (!sellerId) throw refuse('SHIPPING_SIGN_IN_REQUIRED');
  return (await listTenantsOfSeller(db, sellerId)).map((tenant) => tenant.id);
}

const sellerRoute = (operationId: string, summary: string) => ({
  tags: ['shipping'],
  operationId,
  summary,
  security: [{ consoleSession: [] as string[] }] as Array<Record<string, string[]>>,
});

/** The quote log of the session's stores, with the list conventions. */
function quoteCallListOptions(app: FastifyInstance): Parameters<typeof listRoute>[1] {
  const { db } = app.platform.database;
  return {
    url: '/seller/v1/shipping/quote-calls',
    list: quoteCallList,
    schema: {
      ...sellerRoute('listSellerQuoteCalls', 'List the quote log of your stores (filter by tenant_id, outcome, created_at…)'),
      response: {
        200: documentedList('A page of quote calls (list conventions; a massive collection: cursor pagination)'),
        400: errorResponse('A bad list parameter'),
        401: errorResponse('No console session'),
      },
    },
    base: async (request) => {
      const tenants = await sessionTenants(db, request);
      return quoteCallsOf(app.shipping.quoteLog, tenants);
    },
  };
}

/** GET of one store's quote statistics. */
const quoteStatsOptions: RouteShorthandOptions = {
  schema: {
    ...sellerRoute(
      'getSellerQuoteStats',
      "Latency p50/p99 and outcomes of one store's quotes, bucketed over the last hour or day",
    ),
    querystring: Type.Object({
      tenant_id: Type.String({ minLength: 1, maxLength: 64 }),
      window: Type.Optional(Type.Union([Type.Literal('1h'), Type.Literal('24h')])),
    }),
    response: {
      200: documentedObject('Buckets of {start, calls, ok, failed, p50Ms, p99Ms} and the 1.0 s deadline'),
      401: errorResponse('No console session'),
      404: errorResponse('No such store among yours'),
      422: errorResponse('A bad query parameter'),
    },
  },
};

/** Latency and outcomes of one of the session's stores, bucketed over the window asked for. */
function getQuoteStats(app: FastifyInstance) {
  const platform = app.platform;
  const { db } = platform.database;
  return async function getQuoteStats(request: FastifyRequest<QuoteStatsRequest>) {
    const tenants = await sessionTenants(db, request);
    if (!tenants.includes(request.query.tenant_id)) throw refuse('ACCOUNT_STORE_NOT_FOUND');
    const window = request.query.window ?? '1h';
    if (!isQuoteWindow(window)) throw refuseField('SHIPPING_QUOTE_WINDOW_INVALID', 'window', 'query');
    await app.shipping.quoteLog.flush();
    return quoteStats(await app.shipping.quoteLog.store.reader(), request.query.tenant_id, platform.clock.now(), window);
  };
}

/**
 * The shipping page's module: draws the two charts from the stats the page
 * embeds (a JSON data block, never executed), with uPlot. The page's tables
 * carry the same figures for anyone who cannot see the chart.
 */
const SHIPPING_JS = `import { drawCharts } from './charts.js';
// The freight-table upload: the file goes as text/csv to the seller API, with a progress bar.
const upload = document.getElementById('freight-upload');
if (upload) {
  upload.addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(upload);
    const file = form.get('file');
    const id = String(form.get('table_id'));
    const query = new URLSearchParams({ name: String(form.get('name')) });
    if (form.get('distribution_center_id')) query.set('distribution_center_id', String(form.get('distribution_center_id')));
    const progress = document.getElementById('freight-progress');
    const result = document.getElementById('freight-result');
    const button = upload.querySelector('button[type="submit"]');
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', upload.dataset.api + '/' + encodeURIComponent(id) + '?' + query);
    // A workbook declares its own type, so the API reads it as one (D62); anything else goes as CSV.
    const workbook = /.xlsx$/i.test(file.name) || file.type === upload.dataset.xlsx;
    xhr.setRequestHeader('content-type', workbook ? upload.dataset.xlsx : 'text/csv');
    xhr.setRequestHeader('x-csrf-token', upload.dataset.csrf);
    xhr.upload.addEventListener('progress', (e) => { if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100); });
    xhr.addEventListener('load', () => {
      button.disabled = false;
      if (xhr.status === 200 || xhr.status === 201) {
        location.assign(location.pathname + '?uploaded=' + encodeURIComponent(id) + '#freight');
        return;
      }
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch {}
      const alert = document.createElement('div');
      alert.setAttribute('role', 'alert');
      const title = document.createElement('p');
      title.className = 'error';
      // The API answers in English; the page says it in its own language (D81, shipping-views.ts freightProblemCatalogue).
      const words = JSON.parse(result.dataset.problems);
      const lang = document.documentElement.lang;
      const details = body.details || [];
      const total = Number((/has ([0-9]+) problem/.exec(body.message || '') || [])[1] || details.length);
      const counted = details.length === 0 ? words.status.replace('{status}', xhr.status)
        : (new Intl.PluralRules(lang).select(total) === 'one' ? words.one : words.other).replace('#', new Intl.NumberFormat(lang).format(total));
      title.textContent = result.dataset.failed + ' ' + counted + (details.length < total ? ' ' + words.many.replace('#', details.length) : '');
      const figure = (text) => (/^[0-9][0-9,]*(\\.[0-9]+)?$/.test(text) ? new Intl.NumberFormat(lang).format(Number(text.replace(/,/g, ''))) : text);
      const list = document.createElement('ul');
      for (const detail of details.slice(0, 100)) {
        const item = document.createElement('li');
        const field = detail.field || '';
        // A CSV's problem is at a line and column; a workbook's at a sheet, row and column (D62).
        const line = /^lines\\.([0-9]+)\\.(.+)$/.exec(field);
        const cell = /^sheets\\.(.+)\\.rows\\.([0-9]+)\\.([^.]+)$/.exec(field);
        const said = String(detail.message || '')
          .replace(/^line [0-9]+, [^:]+: /, '')
          .replace(/^sheet "(?:[^"]|"")*", row [0-9]+, (?:column [^:(]+?(?: \\(cell [A-Z]+[0-9]+\\))?|cell [A-Z]+[0-9]+(?: \\([^)]*\\))?): /, '')
          .replace(/^part [^:]+: /, '');
        const known = words.reasons.find(([pattern]) => new RegExp(pattern).test(said));
        if (known) {
          const groups = new RegExp(known[0]).exec(said).slice(1).map(figure);
          const reason = known[1].replace(/\\$([12])/g, (m, n) => groups[Number(n) - 1] ?? '');
          // A bound of the whole body (an upload limit) names no line: the reason alone.
          item.textContent = line ? words.line.replace('{line}', line[1]).replace('{column}', line[2]).replace('{reason}', reason)
            : cell ? words.cell.replace('{sheet}', cell[1]).replace('{line}', cell[2]).replace('{column}', cell[3]).replace('{reason}', reason)
            : reason;
        } else {
          item.lang = 'en';
          item.textContent = detail.message;
        }
        list.append(item);
      }
      alert.append(title, list);
      result.replaceChildren(alert);
    });
    xhr.addEventListener('error', () => { button.disabled = false; result.textContent = result.dataset.failed; });
    progress.hidden = false;
    progress.value = 0;
    button.disabled = true;
    result.textContent = '';
    xhr.send(file);
  });
}
const data = document.getElementById('quote-stats');
const host = document.getElementById('quote-chart');
if (data && host) {
  const stats = JSON.parse(data.textContent);
  const labels = JSON.parse(host.getAttribute('data-labels'));
  const x = stats.buckets.map((b) => Date.parse(b.start) / 1000);
  drawCharts(host, labels, x, [
    { title: labels.latency, height: 220, unit: 'ms',
      series: [{ label: 'p50', stroke: '#2563eb', width: 2 }, { label: 'p99', stroke: '#d97706', width: 2 },
        { label: labels.deadline, stroke: '#dc2626', dash: [6, 4], points: { show: false } }],
      values: [stats.buckets.map((b) => b.p50Ms), stats.buckets.map((b) => b.p99Ms), x.map(() => stats.deadlineMs)] },
    { title: labels.outcomes, height: 180,
      // Business answers (invalid CEP, no delivery) are the endpoint working: charted apart from its failures (D83).
      series: [{ label: labels.ok, stroke: '#16a34a', fill: 'rgba(22,163,74,.15)' },
        { label: labels.business, stroke: '#7c3aed', fill: 'rgba(124,58,237,.12)' },
        { label: labels.endpointFailed, stroke: '#dc2626', fill: 'rgba(220,38,38,.15)' }],
      values: [stats.buckets.map((b) => b.ok), stats.buckets.map((b) => b.business), stats.buckets.map((b) => b.failed - b.business)] },
  ]);
}
`;

export const shippingSection: ConsoleSection = {
  name: 'shipping',
  nav: { slug: 'shipping', label: 'console.nav.shipping' },
  routes: shippingConsoleRoutes,
};
