import type { ListEnvelopeOf } from '@feira/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError } from '../core/platform-error.js';
import { escapeHtml } from '../http/html-page.js';
import { requestTranslator, type Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import { runList } from '../lists/list-engine.js';
import type { ListField } from '../lists/list-resource.js';
import { type AnyRecordKind, type AnyRecordList, RECORD_KINDS, storeRecordsQuery } from '../records/index.js';
import type { ConsoleKit } from './console-kit.js';
import type { ConsoleSection } from './console-section.js';
import { storeCrumbs } from './console-views.js';

/** Columns a table shows besides id: the kind's top-level list fields, at most this many. */
const MAX_COLUMNS = 5;
const LIMITS = [20, 50, 100] as const;

function kindOf(table: string): AnyRecordKind | undefined {
  return RECORD_KINDS.find((kind) => kind.table === table);
}

/** The list fields a table shows: the kind's own top-level fields first, then when it was created. */
function columnsOf(kind: AnyRecordKind): Array<[string, ListField]> {
  const fields = Object.entries(kind.list.fields as Record<string, ListField>);
  const own = fields.filter(([name]) => !name.includes('.') && !['id', 'tenant_id', 'created_at', 'updated_at'].includes(name));
  const created = fields.filter(([name]) => name === 'created_at');
  return [...own.slice(0, MAX_COLUMNS - 1), ...created];
}

function cell(t: Translator, value: unknown, field: ListField): string {
  if (value === null || value === undefined) return '—';
  if (field.type === 'datetime' && typeof value === 'string') return escapeHtml(t.dateTime(value));
  if (field.type === 'money' && typeof value === 'number') return escapeHtml(t.money(Math.round(value * 100)));
  if ((field.type === 'integer' || field.type === 'number') && typeof value === 'number') return t.number(value);
  return escapeHtml(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

function recordsView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    /** The store's section navigation (ConsoleKit.storeNav). */
    nav: string;
    kind: AnyRecordKind;
    page: ListEnvelopeOf<Record<string, unknown>> | null;
    error: string | null;
    query: Record<string, string | undefined>;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/records`;
  const tabs = RECORD_KINDS.map(
    (kind) =>
      `<li><a href="${base}/${kind.table}"${kind === input.kind ? ' aria-current="page"' : ''}>${t.html(`records.kind.${kind.table}` as MessageKey)}</a></li>`,
  ).join('');
  const fields = input.kind.list.fields as Record<string, ListField>;
  const enums = Object.entries(fields).filter(([, field]) => field.type === 'enum' && field.values);
  const selects = enums
    .map(([name, field], i) => {
      const options = ['', ...(field.values ?? [])]
        .map(
          (value) =>
            `<option value="${escapeHtml(value)}"${(input.query[name] ?? '') === value ? ' selected' : ''}>${value ? escapeHtml(value) : t.html('webhooks.filter.all')}</option>`,
        )
        .join('');
      return `<label for="f-${i}"><code>${escapeHtml(name)}</code></label><select id="f-${i}" name="${escapeHtml(name)}">${options}</select>`;
    })
    .join('\n');
  const sortOptions = input.kind.list.sorts
    .flatMap((field) => ['desc', 'asc'].map((direction) => `${field}:${direction}`))
    .map(
      (value) =>
        `<option value="${value}"${input.query._sort === value ? ' selected' : ''}>${escapeHtml(value.replace(':', ' '))}</option>`,
    )
    .join('');
  const limitOptions = LIMITS.map(
    (limit) => `<option value="${limit}"${input.query._limit === String(limit) ? ' selected' : ''}>${limit}</option>`,
  ).join('');
  const columns = columnsOf(input.kind);
  const results = input.page?.results ?? [];
  const rows = results
    .map((record, i) => {
      const id = String(record.id ?? '');
      return `<tr><td><code>${escapeHtml(id.slice(0, 8))}</code></td>${columns.map(([name, field]) => `<td>${cell(t, record[name], field)}</td>`).join('')}<td><details><summary aria-label="${escapeHtml(t.text('records.json', { id }))}">JSON</summary><pre tabindex="0" id="json-${i}">${escapeHtml(JSON.stringify(record, null, 2))}</pre></details></td></tr>`;
    })
    .join('\n');
  const next = input.page?.meta.links.next ?? null;
  const caption = t.html(`records.kind.${input.kind.table}` as MessageKey);
  return `${storeCrumbs(t, input.store)}
${input.nav}
<h1>${t.html('records.title', { store: input.store.name })}</h1>
<nav class="sections" aria-label="${escapeHtml(t.text('records.kinds'))}"><ul>${tabs}</ul></nav>
<form method="get" action="${base}/${input.kind.table}" class="inline">
<input type="hidden" name="_paginate" value="cursor">
${selects}
<label for="sort">${t.html('records.sort')}</label><select id="sort" name="_sort">${sortOptions}</select>
<label for="limit">${t.html('records.limit')}</label><select id="limit" name="_limit">${limitOptions}</select>
<button type="submit" class="secondary">${t.html('webhooks.filter.apply')}</button>
</form>
<p class="muted">${t.html('records.api', { path: input.kind.readPath })}</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
${
  results.length === 0
    ? `<p>${t.html('records.none')}</p>`
    : `<div class="table-wrap"><table><caption>${caption}</caption><thead><tr><th scope="col">id</th>${columns.map(([name]) => `<th scope="col">${escapeHtml(name)}</th>`).join('')}<th scope="col">${t.html('records.record')}</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
${next ? `<p><a href="${escapeHtml(next)}" rel="next">${t.html('records.next')}</a></p>` : ''}`;
}

/**
 * The console's records: each kind of the store's records in a
 * table driven by the same list engine as the seller API (filters, sort,
 * cursor pagination: the page's query string is the API's), each row opening
 * its JSON as the API returns it.
 */
export async function recordsConsoleRoutes(app: FastifyInstance, kit: ConsoleKit): Promise<void> {
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
      kit.seeOther(reply, `/console/stores/${encodeURIComponent(request.params.tenantId)}/records/orders`),
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
      const kind = kindOf(request.params.table);
      if (!kind) {
        return kit.page(request, reply.code(404), t, found.seller, {
          status: 404,
          title: t.text('console.notFound.title'),
          body: `<h1>${t.html('console.notFound.title')}</h1><p>${t.html('console.notFound.text')}</p>`,
        });
      }
      // Empty selects mean "any": they are not filters.
      const query = Object.fromEntries(
        Object.entries(request.query).filter(([, value]) => value !== '' && value !== undefined),
      ) as Record<string, string>;
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
        const detail = caught.details[0];
        error = detail ? `${detail.field}: ${detail.message}` : caught.message;
        reply.code(caught.statusCode);
      }
      return kit.page(request, reply, t, found.seller, {
        status: reply.statusCode,
        title: t.text('records.title', { store: found.store.name }),
        body: recordsView(t, {
          store: found.store,
          nav: kit.storeNav(t, found.store.id, 'records'),
          kind,
          page,
          error,
          query: request.query,
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
