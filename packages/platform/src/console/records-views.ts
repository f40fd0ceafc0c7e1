import type { ListEnvelopeOf } from '@feira/contract';
import { escapeHtml } from '../http/html-page.js';
import { type LocalizedText, labelText, type Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import type { ListField } from '../lists/list-resource.js';
import { RECORD_SEARCH_MAX_LENGTH, type RecordSearchField, type RegisteredRecordKind } from '../records/index.js';
import { formatConsoleTime } from './console-kit.js';
import { storeCrumbs } from './console-views.js';
import { dataTable } from './table-views.js';

/** Columns a table shows besides id: the kind's top-level list fields, at most this many. */
const MAX_COLUMNS = 5;
const RECORD_LIMITS = [20, 50, 100] as const;
/** Pages the "previous" trail remembers (older ones are reached from the first page). */
const TRAIL_MAX = 30;

/** The list fields a table shows: the kind's own top-level fields first, then when it was created. */
function columnsOf(kind: RegisteredRecordKind): Array<[string, ListField]> {
  const fields = Object.entries(kind.list.fields as Record<string, ListField>);
  const own = fields.filter(([name]) => !name.includes('.') && !['id', 'tenant_id', 'created_at', 'updated_at'].includes(name));
  const created = fields.filter(([name]) => name === 'created_at');
  return [...own.slice(0, MAX_COLUMNS - 1), ...created];
}

/** A kind's name in the page's language: its catalogue entry, or the name the kind carries (D91). */
function kindLabel(t: Translator, kind: { labelKey: MessageKey | LocalizedText }): string {
  return labelText(t, kind.labelKey);
}

/**
 * A list field's label in the page's language ("Valor total" for total_amount):
 * the catalogue's, else the one the kind carries, else the API name.
 */
export function fieldLabel(t: Translator, name: string, kind?: Pick<RegisteredRecordKind, 'fieldLabels'>): string {
  const key = `records.field.${name}` as MessageKey;
  if (t.has(key)) return t.text(key);
  return kind?.fieldLabels?.[name]?.[t.locale] ?? name;
}

/** An enum value's label ("Enviado" for shipped), the value itself when the catalogue has none. */
function valueLabel(t: Translator, field: string, value: string): string {
  const key = `records.value.${field}` as MessageKey;
  return t.has(key) ? t.text(key, { value }) : value;
}

function cell(t: Translator, name: string, value: unknown, field: ListField): string {
  if (value === null || value === undefined) return '—';
  if (field.type === 'datetime' && typeof value === 'string')
    return `<time datetime="${escapeHtml(value)}">${escapeHtml(formatConsoleTime(t, value))}</time>`;
  if (field.type === 'money' && typeof value === 'number') return escapeHtml(t.money(Math.round(value * 100)));
  if ((field.type === 'integer' || field.type === 'number') && typeof value === 'number') return t.number(value);
  if (field.type === 'enum' && typeof value === 'string') return escapeHtml(valueLabel(t, name, value));
  return escapeHtml(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/**
 * Paging links over the engine's cursor: "next" carries the engine's token
 * and, in `_trail`, the tokens of the pages before (the first page as an
 * empty entry), so "previous" is the trail's last entry and "first" drops
 * both; the filters, sort and page size stay.
 */
function pagingLinks(
  path: string,
  query: Record<string, string>,
  nextToken: string | null,
): { first: string | null; previous: string | null; next: string | null } {
  const { _next_token: current, _trail: trailRaw, ...kept } = query;
  const trail = trailRaw === undefined ? [] : trailRaw.split(',');
  const href = (token: string | undefined, rest: string[]) => {
    const params = new URLSearchParams(kept);
    if (token) params.set('_next_token', token);
    if (rest.length > 0) params.set('_trail', rest.join(','));
    const search = params.toString();
    return search ? `${path}?${search}` : path;
  };
  const onFirst = !current;
  return {
    first: onFirst ? null : href(undefined, []),
    previous: onFirst ? null : trail.length > 0 ? href(trail.at(-1) || undefined, trail.slice(0, -1)) : href(undefined, []),
    next: nextToken ? href(nextToken, [...trail, current ?? ''].slice(-TRAIL_MAX)) : null,
  };
}

/** The `_next_token` of an engine's next link, if any. */
function nextTokenOf(next: string | null): string | null {
  if (!next) return null;
  try {
    return new URL(next, 'http://x').searchParams.get('_next_token');
  } catch {
    return null;
  }
}

/** The search box of a kind's page and, once searched, what it found (D155). */
export interface RecordSearchView {
  /** The term as typed ('' before a search). */
  raw: string;
  /** What the kind's search matches, the id first. */
  fields: readonly RecordSearchField[];
  /** What the search found; null on the list (no search, or a term refused). */
  found: { results: unknown[]; more: boolean } | null;
  /** The term was empty past its spaces, too long, or held a control character. */
  invalid: boolean;
}

/** The search form: one box, what it matches said beside it in the page's language. */
function searchForm(t: Translator, path: string, kind: RegisteredRecordKind, search: RecordSearchView): string {
  const fields = search.fields
    .map(({ field, match }) =>
      t.text(match === 'prefix' ? 'records.search.prefix' : 'records.search.exact', { field: fieldLabel(t, field, kind) }),
    )
    .join(', ');
  const label = t.text('records.search.label', { kind: kindLabel(t, kind) });
  return `<form method="get" action="${path}" class="inline" role="search" aria-label="${escapeHtml(label)}">
<label for="q">${escapeHtml(label)}</label>
<input type="search" id="q" name="q" maxlength="${RECORD_SEARCH_MAX_LENGTH}" value="${escapeHtml(search.raw)}" aria-describedby="q-hint">
<button type="submit" class="secondary">${t.html('records.search.submit')}</button>
${search.found || search.invalid ? `<a href="${path}">${t.html('records.search.clear')}</a>` : ''}
</form>
<p class="muted" id="q-hint">${t.html('records.search.hint', { fields })}</p>`;
}

export function recordsView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    /** The store's section navigation (ConsoleKit.storeNav). */
    nav: string;
    kind: RegisteredRecordKind;
    /** The kinds of the registry in use, one tab each. */
    kinds: readonly RegisteredRecordKind[];
    page: ListEnvelopeOf<Record<string, unknown>> | null;
    error: string | null;
    /** The page's query (filters, `_sort`, `_limit`, cursor and trail), empty values dropped. */
    query: Record<string, string>;
    search: RecordSearchView;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/records`;
  const tabs = input.kinds
    .map(
      (kind) =>
        `<li><a href="${base}/${kind.table}"${kind === input.kind ? ' aria-current="page"' : ''}>${escapeHtml(kindLabel(t, kind))}</a></li>`,
    )
    .join('');
  const fields = input.kind.list.fields as Record<string, ListField>;
  const enums = Object.entries(fields).filter(([, field]) => field.type === 'enum' && field.values);
  const selects = enums
    .map(([name, field], i) => {
      const options = ['', ...(field.values ?? [])]
        .map(
          (value) =>
            `<option value="${escapeHtml(value)}"${(input.query[name] ?? '') === value ? ' selected' : ''}>${value ? escapeHtml(valueLabel(t, name, value)) : t.html('webhooks.filter.all')}</option>`,
        )
        .join('');
      return `<label for="f-${i}">${escapeHtml(fieldLabel(t, name, input.kind))}</label><select id="f-${i}" name="${escapeHtml(name)}">${options}</select>`;
    })
    .join('\n');
  // The sort the list is in: the engine's applied sort, else what was asked, else the kind's default.
  const applied = input.page?.meta.sorts[0] ?? input.kind.list.defaultSort[0];
  const current = input.query._sort?.split(',')[0] ?? (applied ? `${applied.field}:${applied.direction}` : '');
  const sortOptions = input.kind.list.sorts
    .flatMap((field) => (['desc', 'asc'] as const).map((direction) => ({ field, direction })))
    .map(({ field, direction }) => {
      const value = `${field}:${direction}`;
      const label = t.text('records.sortBy', { field: fieldLabel(t, field, input.kind), direction });
      return `<option value="${value}"${current === value ? ' selected' : ''}>${escapeHtml(label)}</option>`;
    })
    .join('');
  const limitNow = input.query._limit ?? String(input.page?.meta.page.limit ?? RECORD_LIMITS[0]);
  const limitOptions = RECORD_LIMITS.map(
    (limit) => `<option value="${limit}"${limitNow === String(limit) ? ' selected' : ''}>${t.number(limit)}</option>`,
  ).join('');
  const columns = columnsOf(input.kind);
  const searched = input.search.found;
  const results = (searched ? searched.results : (input.page?.results ?? [])) as Array<Record<string, unknown>>;
  const rows = results.map((record, i) => {
    const id = String(record.id ?? '');
    return [
      `<code>${escapeHtml(id)}</code>`,
      ...columns.map(([name, field]) => cell(t, name, record[name], field)),
      `<details><summary aria-label="${escapeHtml(t.text('records.json', { id }))}">JSON</summary><pre tabindex="0" id="json-${i}">${escapeHtml(JSON.stringify(record, null, 2))}</pre></details>`,
    ];
  });
  const path = `${base}/${input.kind.table}`;
  // A search's results are one page of their own.
  const links = searched
    ? { first: null, previous: null, next: null }
    : pagingLinks(path, input.query, nextTokenOf(input.page?.meta.links.next ?? null));
  const paging = [
    links.first ? `<a href="${escapeHtml(links.first)}">${t.html('records.first')}</a>` : '',
    links.previous ? `<a href="${escapeHtml(links.previous)}" rel="prev">${t.html('records.previous')}</a>` : '',
    links.next ? `<a href="${escapeHtml(links.next)}" rel="next">${t.html('records.next')}</a>` : '',
  ].filter(Boolean);
  const caption = kindLabel(t, input.kind);
  return `${storeCrumbs(t, input.store)}
${input.nav}
<h1>${t.html('records.title', { store: input.store.name })}</h1>
<nav class="sections" aria-label="${escapeHtml(t.text('records.kinds'))}"><ul>${tabs}</ul></nav>
${searchForm(t, path, input.kind, input.search)}
${input.search.invalid ? `<p class="error" role="alert">${t.html('records.search.invalid', { max: RECORD_SEARCH_MAX_LENGTH })}</p>` : ''}
${
  searched
    ? `<p role="status">${t.html('records.search.found', { count: results.length, more: searched.more ? 'yes' : 'no', term: input.search.raw })}</p>`
    : `<form method="get" action="${path}" class="inline">
${selects}
<label for="sort">${t.html('records.sort')}</label><select id="sort" name="_sort">${sortOptions}</select>
<label for="limit">${t.html('records.limit')}</label><select id="limit" name="_limit">${limitOptions}</select>
<button type="submit" class="secondary">${t.html('webhooks.filter.apply')}</button>
</form>
<p class="muted">${t.html('records.api', { path: { html: `<code>${escapeHtml(input.kind.readPath)}</code>` } })}</p>`
}
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
${
  results.length === 0
    ? searched || input.search.invalid
      ? ''
      : `<p>${t.html('records.none')}</p>`
    : dataTable({
        caption,
        label: caption,
        columns: [
          { label: 'ID' },
          ...columns.map(([name, field]) => ({
            label: fieldLabel(t, name, input.kind),
            num: field.type === 'money' || field.type === 'integer' || field.type === 'number',
          })),
          { label: t.text('records.record') },
        ],
        rows,
      })
}
${paging.length > 0 ? `<nav class="paging" aria-label="${escapeHtml(t.text('records.paging'))}"><ul class="plain inline-list">${paging.map((a) => `<li>${a}</li>`).join('')}</ul></nav>` : ''}`;
}

/** Drops `_trail` (the console's, not the engine's) and empty selects ("any" is not a filter). */
export function listQueryOf(query: Record<string, string | undefined>): {
  shown: Record<string, string>;
  engine: Record<string, string>;
} {
  const shown = Object.fromEntries(
    Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== '' && entry[1] !== undefined),
  );
  const { _trail: _ignored, notice: _notice, q: _search, ...engine } = shown;
  return { shown, engine };
}
