import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { freightTablesOf } from '../shipping/index.js';
import { storeDeliveriesSince, storeSubscriptions } from '../webhooks/index.js';
import { assetUrl, serveAsset } from './console-assets.js';
import { type ConsoleKit, consoleTimeHtml, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { storeCrumbs } from './console-views.js';
import { dataTable } from './table-views.js';

const HOUR = 3600_000;
/** The overview's periods: each a span and the width of one chart bucket. */
const WINDOWS = {
  '24h': { ms: 24 * HOUR, bucketMs: HOUR },
  '7d': { ms: 7 * 24 * HOUR, bucketMs: 6 * HOUR },
  '30d': { ms: 30 * 24 * HOUR, bucketMs: 24 * HOUR },
} as const;
type OverviewWindow = keyof typeof WINDOWS;
/** Deliveries read for one overview at most: the newest of the period; the page says when there were more. */
const DELIVERY_LIMIT = 50_000;

interface Bucket {
  start: string;
  succeeded: number;
  pending: number;
  dead: number;
}

/** The store's deliveries created in the period, counted per state overall and per bucket. */
function bucketsOf(rows: Array<{ created_at: string; state: string }>, now: Date, window: OverviewWindow) {
  const { ms, bucketMs } = WINDOWS[window];
  const end = Math.ceil(now.getTime() / bucketMs) * bucketMs;
  const start = end - ms;
  const buckets: Bucket[] = Array.from({ length: ms / bucketMs }, (_, i) => ({
    start: new Date(start + i * bucketMs).toISOString(),
    succeeded: 0,
    pending: 0,
    dead: 0,
  }));
  const totals = { succeeded: 0, pending: 0, dead: 0 };
  for (const row of rows) {
    const state = row.state as keyof typeof totals;
    if (!(state in totals)) continue;
    totals[state] += 1;
    const bucket = buckets[Math.floor((Date.parse(row.created_at) - start) / bucketMs)];
    if (bucket) bucket[state] += 1;
  }
  return { buckets, totals };
}

/** JSON in a data block: `<` escaped so the text can never close the element. */
const dataBlock = (id: string, value: unknown, charts: string) =>
  `<script type="application/json" id="${id}" data-charts="${escapeHtml(charts)}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;

function overviewView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    nav: string;
    window: OverviewWindow;
    subscriptions: { active: number; disabled: number };
    freightTables: number;
    deliveries: ReturnType<typeof bucketsOf>;
    truncated: boolean;
  },
): string {
  const { totals, buckets } = input.deliveries;
  const total = totals.succeeded + totals.pending + totals.dead;
  const here = storePath(input.store.id, '/overview');
  const periods = (Object.keys(WINDOWS) as OverviewWindow[])
    .map((w) =>
      w === input.window
        ? `<li><a href="${here}?window=${w}" aria-current="page">${t.html('overview.window', { window: w })}</a></li>`
        : `<li><a href="${here}?window=${w}">${t.html('overview.window', { window: w })}</a></li>`,
    )
    .join('');
  const labels = {
    time: t.text('shipping.col.from'),
    deliveries: t.text('overview.chart.title'),
    succeeded: t.text('overview.state.succeeded'),
    pending: t.text('overview.state.pending'),
    dead: t.text('overview.state.dead'),
  };
  const busy = buckets.filter((b) => b.succeeded + b.pending + b.dead > 0);
  return `${storeCrumbs(t, input.store)}
${input.nav}
<h1>${t.html('overview.title', { store: input.store.name })}</h1>
<nav aria-label="${escapeHtml(t.text('overview.periods'))}"><ul class="inline-list">${periods}</ul></nav>
<dl class="facts overview-counts">
<dt>${t.html('overview.total')}</dt><dd>${t.html('overview.deliveries', { count: total })}</dd>
<dt>${t.html('overview.state.succeeded')}</dt><dd>${t.number(totals.succeeded)}</dd>
<dt>${t.html('overview.state.pending')}</dt><dd>${t.number(totals.pending)}</dd>
<dt>${t.html('overview.state.dead')}</dt><dd>${t.number(totals.dead)}</dd>
<dt>${t.html('overview.subscriptions')}</dt><dd>${t.html('overview.subscriptionCounts', input.subscriptions)}</dd>
<dt>${t.html('shipping.freightTables')}</dt><dd>${t.number(input.freightTables)}</dd>
</dl>
${input.truncated ? `<p class="muted">${t.html('overview.truncated', { limit: DELIVERY_LIMIT })}</p>` : ''}
<figure>
<div id="overview-chart" class="chart" data-labels="${escapeHtml(JSON.stringify(labels))}"></div>
<figcaption>${t.html('overview.chart.caption', { window: input.window })}</figcaption>
</figure>
${dataBlock('overview-stats', { buckets }, assetUrl('/console/assets/charts.js'))}
${
  busy.length
    ? `<details><summary>${t.html('shipping.chart.table')}</summary>${dataTable({
        label: t.text('shipping.chart.table'),
        caption: t.text('shipping.chart.table'),
        columns: [
          { label: labels.time },
          { label: labels.succeeded, num: true },
          { label: labels.pending, num: true },
          { label: labels.dead, num: true },
        ],
        rows: busy.map((b) => [consoleTimeHtml(t, b.start), t.number(b.succeeded), t.number(b.pending), t.number(b.dead)]),
      })}</details>`
    : `<p>${t.html('overview.none')}</p>`
}`;
}

/**
 * A store's overview (D149): its deliveries of the last 24 hours, 7 or 30
 * days, counted per state for the whole store and charted over the period
 * with the console's chart module, beside its subscriptions and freight tables.
 */
async function overviewRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const platform = app.platform;
  serveAsset(app, '/console/assets/overview.js', 'text/javascript', OVERVIEW_JS);
  app.get<{ Params: { tenantId: string }; Querystring: { window?: string } }>(
    '/console/stores/:tenantId/overview',
    { schema: { hide: true, params: Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 64 }) }) } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const t = kit.translator(request);
      const window = (Object.keys(WINDOWS) as OverviewWindow[]).find((w) => w === request.query.window) ?? '24h';
      const now = platform.clock.now();
      const since = new Date(now.getTime() - WINDOWS[window].ms - WINDOWS[window].bucketMs).toISOString();
      const [rows, subscriptions, tables] = await Promise.all([
        storeDeliveriesSince(platform.database.db, found.store.id, since, DELIVERY_LIMIT + 1),
        storeSubscriptions(platform.database.db, found.store.id),
        freightTablesOf(platform.database, [found.store.id]),
      ]);
      const active = subscriptions.filter((s) => s.state === 'active').length;
      return kit.page(request, reply, t, found.seller, {
        title: t.text('overview.title', { store: found.store.name }),
        scripts: ['/console/assets/overview.js'],
        styles: ['/console/assets/uplot.css'],
        body: overviewView(t, {
          store: found.store,
          nav: kit.storeNav(t, found.store.id, 'overview'),
          window,
          subscriptions: { active, disabled: subscriptions.length - active },
          freightTables: tables.length,
          deliveries: bucketsOf(rows.slice(0, DELIVERY_LIMIT), now, window),
          truncated: rows.length > DELIVERY_LIMIT,
        }),
      });
    },
  );
}

/** The overview's module: the deliveries chart, drawn by the shared chart module only where the page has one. */
const OVERVIEW_JS = `const data = document.getElementById('overview-stats');
const host = document.getElementById('overview-chart');
if (data && host) {
  const { drawCharts } = await import(data.dataset.charts);
  const stats = JSON.parse(data.textContent);
  const labels = JSON.parse(host.getAttribute('data-labels'));
  const x = stats.buckets.map((b) => Date.parse(b.start) / 1000);
  drawCharts(host, labels, x, [
    { title: labels.deliveries, height: 220,
      series: [{ label: labels.succeeded, stroke: '#16a34a', width: 2 }, { label: labels.pending, stroke: '#d97706', width: 2 },
        { label: labels.dead, stroke: '#dc2626', width: 2 }],
      values: [stats.buckets.map((b) => b.succeeded), stats.buckets.map((b) => b.pending), stats.buckets.map((b) => b.dead)] },
  ]);
}
`;

export const overviewSection: ConsoleSection = {
  name: 'overview',
  nav: { slug: 'overview', label: 'console.nav.overview' },
  routes: overviewRoutes,
};
