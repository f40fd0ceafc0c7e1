import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { FREIGHT_COLUMNS, findFreightTable, freightRowsPage } from '../shipping/index.js';
import { type ConsoleKit, storePath } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { crumbs } from './console-views.js';
import { dataTable } from './table-views.js';

/** Rows per page of the view: a screenful on a desktop, a short scroll of cards at 375 px. */
const ROWS_PER_PAGE = 50;

type FreightRowRecord = Awaited<ReturnType<typeof freightRowsPage>>[number];

/** A row's cells in the VTEX layout's order (FREIGHT_COLUMNS), as a CSV or a workbook of either format reads back. */
function rowCells(t: Translator, row: FreightRowRecord): string[] {
  const zip = (value: number) => `<code>${String(value).padStart(8, '0')}</code>`;
  const n = (value: number | null) => (value === null ? '—' : t.number(value));
  const money = (value: number) => escapeHtml(t.money(Math.round(value * 100)));
  return [
    zip(row.zip_start),
    zip(row.zip_end),
    escapeHtml(row.polygon_name),
    n(row.weight_start),
    n(row.weight_end),
    money(row.absolute_money_cost),
    n(row.price_percent),
    money(row.price_by_extra_weight),
    n(row.max_volume),
    `<code>${escapeHtml(row.time_cost)}</code>`,
    escapeHtml(row.country),
    money(row.minimum_value_insurance),
  ];
}

/**
 * A freight table's rows, read-only, a page at a time in upload order
 * (D148): the twelve VTEX columns whichever format the table came in, each
 * header in the page's language with the layout's own name beside it.
 */
async function freightRowsRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
  const Params = Type.Object({
    tenantId: Type.String({ minLength: 1, maxLength: 64 }),
    tableId: Type.String({ minLength: 1, maxLength: 32 }),
  });
  const Query = Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })) });
  app.get<{ Params: { tenantId: string; tableId: string }; Querystring: { after?: string } }>(
    '/console/stores/:tenantId/shipping/freight-tables/:tableId',
    { schema: { hide: true, params: Params, querystring: Query } },
    async (request, reply) => {
      const found = await kit.storeOf(request, reply, request.params.tenantId);
      if (!found) return reply;
      const table = await findFreightTable(app.shipping.database, found.store.id, request.params.tableId);
      if (!table) return kit.notFoundPage(request, reply, found.seller);
      const t = kit.translator(request);
      const after = Number(request.query.after ?? 0);
      const rows = await freightRowsPage(app.shipping.database, table.version_key, after, ROWS_PER_PAGE + 1);
      const shown = rows.slice(0, ROWS_PER_PAGE);
      const here = storePath(found.store.id, `/shipping/freight-tables/${encodeURIComponent(table.table_id)}`);
      const last = shown.at(-1);
      const paging = [
        after > 0 ? `<a href="${here}">${t.html('freight.rows.first')}</a>` : '',
        rows.length > ROWS_PER_PAGE && last ? `<a href="${here}?after=${last.line_no}">${t.html('freight.rows.next')}</a>` : '',
      ].filter(Boolean);
      const columns = FREIGHT_COLUMNS.map((name) => ({
        label: t.text('freight.column', { name }),
        num: !['ZipCodeStart', 'ZipCodeEnd', 'PolygonName', 'TimeCost', 'Country'].includes(name),
      }));
      const shipping = storePath(found.store.id, '/shipping');
      return kit.page(request, reply, t, found.seller, {
        title: t.text('freight.rows.title', { id: table.table_id }),
        body: `${crumbs(
          [
            { href: '/console', label: t.text('console.stores.title') },
            { href: storePath(found.store.id, '/webhooks'), label: found.store.name },
            { href: `${shipping}#freight`, label: t.text('console.nav.shipping') },
            { label: table.table_id },
          ],
          t,
        )}
<h1>${t.html('freight.rows.title', { id: table.table_id })}</h1>
<p>${t.html('freight.rows.summary', { name: table.name, rows: Number(table.row_count), format: table.source_format === 'xlsx' ? 'xlsx' : 'csv' })}</p>
${shown.length ? dataTable({ caption: t.text('freight.rows.caption', { from: shown[0]?.line_no ?? 0, to: last?.line_no ?? 0 }), label: t.text('freight.rows.title', { id: table.table_id }), columns, rows: shown.map((row) => rowCells(t, row)) }) : `<p>${t.html('freight.rows.none')}</p>`}
${paging.length ? `<nav aria-label="${escapeHtml(t.text('records.paging'))}"><ul class="inline-list">${paging.map((link) => `<li>${link}</li>`).join('')}</ul></nav>` : ''}`,
      });
    },
  );
}

export const freightRowsSection: ConsoleSection = { name: 'freight-rows', routes: freightRowsRoutes };
