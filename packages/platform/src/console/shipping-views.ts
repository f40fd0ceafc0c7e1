import { escapeHtml, hiddenFields } from '../http/html-page.js';
import { type LocalizedText, labelText, type Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import type { QuoteCallRecord, QuoteCheckReport, QuoteStats, QuoteWindow, ShippingSettings } from '../shipping/index.js';
import { type Confirmation, confirmForm } from './confirm-views.js';
import { consoleTimeHtml } from './console-kit.js';
import { storeCrumbs } from './console-views.js';
import { dataTable } from './table-views.js';

/** The URL as the page shows it: the query may hold the seller's token (spec "Authentication" rule 12). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '—';
  }
}

/** JSON in a data block: `<` escaped so the text can never close the element. */
function dataBlock(id: string, value: unknown): string {
  return `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
}

const ruleKey = (id: string) => `check.rule.${id}` as MessageKey;

/** A case of Test my endpoint by its translated name ("latency sample 3" → "amostra de latência 3"). */
function caseLabel(t: Translator, name: string): string {
  const sample = /^latency sample (\d+)$/.exec(name);
  if (sample) return t.text('check.case.sample', { n: Number(sample[1]) });
  const zip = /^zipcode that does not exist \((\d+)\)$/.exec(name);
  if (zip) return t.text('check.case.unknownZipcode', { zipcode: zip[1] as string });
  const sku = /^SKU of (\d+) characters$/.exec(name);
  if (sku) return t.text('check.case.longSku', { length: Number(sku[1]) });
  const known: Record<string, MessageKey> = {
    'one item': 'check.case.oneItem',
    'every given SKU': 'check.case.everySku',
    'many items (60 lines)': 'check.case.manyItems',
    'large quantity (999)': 'check.case.largeQuantity',
    'tiny, light item and a heavy, bulky one': 'check.case.extremes',
    'every request': 'check.case.every',
  };
  const key = known[name];
  return key ? t.text(key) : name;
}

/** A quote outcome's label ("CEP inválido" for invalid_zipcode); the code itself beside it. */
function outcomeLabel(t: Translator, outcome: string): string {
  return t.text('shipping.outcome', { outcome });
}

/**
 * Test my endpoint's report (D83): failed rules first, each failure with the
 * request that was sent and the answer that came back (the technical detail
 * in `<code>`, as the seller's server wrote it); rules that need a quote are
 * "not exercised" when the endpoint never gave one.
 */
function reportView(t: Translator, report: QuoteCheckReport): string {
  const verdict = (status: 'passed' | 'failed' | 'not_exercised') =>
    `<span class="pill${status === 'failed' ? ' bad' : ''}">${t.html(`check.status.${status}`)}</span>`;
  const byName = new Map(report.cases.map((c) => [c.name, c]));
  const failureView = (f: { case: string; detail: string | null }) => {
    // A failure of the whole run ("every request") shows the first request and its answer as an example.
    const c = byName.get(f.case) ?? report.cases[0];
    const answer = c
      ? `${c.httpStatus === null ? t.html('check.noAnswer') : t.html('check.answer', { status: c.httpStatus, outcome: outcomeLabel(t, c.outcome) })}`
      : '';
    return `<li><strong>${escapeHtml(caseLabel(t, f.case))}</strong>${answer ? ` · ${answer}` : ''}
${f.detail ? `<pre tabindex="0" lang="en"><code>${escapeHtml(f.detail.slice(0, 600))}</code></pre>` : ''}
${
  c
    ? `<details><summary>${t.html('check.request')}</summary><pre tabindex="0"><code>${escapeHtml(JSON.stringify(c.request, null, 2).slice(0, 4000))}</code></pre></details>
<details><summary>${t.html('check.response')}</summary><pre tabindex="0"><code>${c.responseBody ? escapeHtml(c.responseBody) : t.html('delivery.emptyBody')}</code></pre></details>`
    : ''
}</li>`;
  };
  const rows = report.rules.map((rule) => {
    const failures = rule.failures.slice(0, 3).map(failureView).join('');
    return [
      `<code>${escapeHtml(rule.id)}</code>`,
      `${t.html(ruleKey(rule.id))}${failures ? `<ul class="failures">${failures}</ul>` : ''}`,
      verdict(rule.status),
    ];
  });
  const warnings = report.advice
    .filter((a) => a.status === 'warn')
    .map((a) => `<li>${t.html(ruleKey(a.id))}</li>`)
    .join('');
  const l = report.latency;
  const counts = { passed: 0, failed: 0, not_exercised: 0 };
  for (const rule of report.rules) counts[rule.status] += 1;
  return `<p class="notice" role="status">${t.html(report.passed ? 'check.passed' : 'check.failed')}</p>
<p>${t.html('check.counts', counts)}</p>
<p>${t.html('check.latency', { samples: l.samples, p50: l.p50Ms, p99: l.p99Ms, max: l.maxMs, deadline: l.deadlineMs })}</p>
<p class="muted">${t.html('check.logged')}</p>
${warnings ? `<h3>${t.html('check.advice')}</h3><ul>${warnings}</ul>` : ''}
${dataTable({
  caption: t.text('check.caption'),
  label: t.text('check.caption'),
  columns: [
    { label: t.text('check.col.rule') },
    { label: t.text('check.col.description') },
    { label: t.text('check.col.verdict') },
  ],
  rows,
})}`;
}

function settingsView(
  t: Translator,
  settings: ShippingSettings | null,
  labelOf: (method: string) => MessageKey | LocalizedText,
): string {
  if (!settings) return `<p>${t.html('shipping.notConfigured')}</p>`;
  const methods = settings.methods.map((m) => escapeHtml(labelText(t, labelOf(m)))).join(', ');
  const centres = settings.distributionCenters.length
    ? settings.distributionCenters
        .map(
          (centre) =>
            `<code>${escapeHtml(centre.id)}</code>${centre.zipcode ? ` (${t.html('shipping.centreZipcode', { zipcode: centre.zipcode })})` : ''}`,
        )
        .join(', ')
    : t.html('shipping.none');
  // D57: the gateway's kind; its credential is never shown.
  const gateway = settings.gateway
    ? `<dt>${t.html('shipping.gateway')}</dt><dd>${t.html('shipping.gateway.kind', { kind: settings.gateway.kind })}${settings.gateway.id ? ` <code>${escapeHtml(settings.gateway.id)}</code>` : ''}</dd>`
    : '';
  return `<dl class="facts">
<dt>${t.html('shipping.methods')}</dt><dd>${methods}</dd>
${gateway}
<dt>${t.html('shipping.url')}</dt><dd>${settings.url ? `<code>${escapeHtml(shownUrl(settings.url))}</code>` : t.html('shipping.none')}</dd>
<dt>${t.html('shipping.centres')}</dt><dd>${centres}</dd>
<dt>${t.html('shipping.fallback')}</dt><dd>${settings.fallback ? escapeHtml(labelText(t, labelOf(settings.fallback))) : t.html('shipping.none')}</dd>
</dl>`;
}

export interface FreightTableView {
  id: string;
  name: string;
  distributionCenterId: string | null;
  rows: number;
  updatedAt: string;
}

/**
 * How the upload module says a refused spreadsheet's problems in the page's
 * language (D81): the seller API answers in English, each problem one of the
 * fixed sentences of shipping/freight/freight-csv.ts; each has its pattern
 * here and its words in the catalogues (`$1`… are the pattern's groups; a
 * figure among them is shown in the page's number format). A sentence with no
 * pattern is shown as the server wrote it, marked as English.
 */
function freightProblemCatalogue(t: Translator) {
  const reasons: Array<[string, MessageKey]> = [
    ['^missing value$', 'freight.problem.missing'],
    ['^must be a zipcode of exactly 8 digits$', 'freight.problem.zipcode'],
    ['^"(.*)" is not a number$', 'freight.problem.notNumber'],
    ['^must not be negative$', 'freight.problem.negative'],
    ['^must be at most ([0-9,.]+) days$', 'freight.problem.maxDays'],
    ['^must be at most ([0-9,.]+) reais per kg$', 'freight.problem.maxMoneyPerKg'],
    ['^must be at most ([0-9,.]+) reais$', 'freight.problem.maxMoney'],
    ['^must be at most ([0-9,.]+) (g|%|cm³)$', 'freight.problem.maxUnit'],
    ['^must not contain U\\+0000$', 'freight.problem.nul'],
    ['^must be d\\.hh:mm:ss, hh:mm:ss or whole days$', 'freight.problem.timeCost'],
    ['^ZipCodeStart is greater than ZipCodeEnd$', 'freight.problem.zipOrder'],
    ['^WeightStart is greater than WeightEnd$', 'freight.problem.weightOrder'],
    ['^zipcode and weight ranges overlap those of line ([0-9]+)$', 'freight.problem.overlap'],
    ['^column missing from the header$', 'freight.problem.column'],
    ['^the spreadsheet is empty$', 'freight.problem.empty'],
    ['^not readable as CSV: (.*)$', 'freight.problem.csv'],
    ['^must be an amount with at most 2 decimal places$', 'freight.problem.decimals'],
    // The upload limits (shipping/freight/upload-limits.ts) a CSV can pass: its cell, row, lines and bytes.
    ['^a cell is longer than ([0-9,]+) characters$', 'freight.problem.limitCell'],
    ['^a row has more than ([0-9,]+) cells$', 'freight.problem.limitColumns'],
    ['^the spreadsheet has more than ([0-9,]+) rows$', 'freight.problem.limitRows'],
    ['^the spreadsheet is over ([0-9,]+) bytes$', 'freight.problem.limitBytes'],
    // A workbook's own sentences (freight-xlsx.ts) and bounds (xlsx-bounds.ts, upload-limits.ts).
    ['^the sheet has more than ([0-9,]+) rows; split it into several tables$', 'freight.problem.limitRows'],
    ['^the first sheet is empty$', 'freight.problem.empty'],
    ['^not readable as an \\.xlsx workbook: (.*)$', 'freight.problem.xlsx'],
    ['^the workbook is over ([0-9,]+) bytes$', 'freight.problem.limitWorkbookBytes'],
    ['^a part of the workbook inflates to over ([0-9,]+) bytes$', 'freight.problem.limitInflated'],
    ['^a part of the workbook inflates to over ([0-9,]+) times its compressed size$', 'freight.problem.limitRatio'],
    ['^the workbook has over ([0-9,]+) shared strings$', 'freight.problem.limitSharedStrings'],
    ["^the workbook's shared strings hold over ([0-9,]+) bytes of text$", 'freight.problem.limitSharedBytes'],
    ['^reading the workbook needs more than ([0-9,]+) MiB of memory$', 'freight.problem.limitHeap'],
    ['^reading the workbook takes longer than ([0-9,]+) seconds$', 'freight.problem.limitSeconds'],
  ];
  return {
    one: t.text('freight.problems', { count: 1 }),
    other: t.text('freight.problems', { count: 2 }).replace('2', '#'),
    many: t.text('freight.problemsListed', { listed: 100 }).replace('100', '#'),
    line: t.text('freight.problem.line', { line: '{line}', column: '{column}', reason: '{reason}' }),
    cell: t.text('freight.problem.cell', { sheet: '{sheet}', line: '{line}', column: '{column}', reason: '{reason}' }),
    status: t.text('console.error.generic', { status: '{status}' }),
    reasons: reasons.map(([pattern, key]) => [pattern, t.text(key, { a: '$1', b: '$2' })]),
  };
}

/** The media type a workbook upload declares (the seller API reads the body by it, D62). */
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What deleting a freight table asks, in the dialog and on the no-JavaScript page alike (D69). */
export function deleteTableConfirmation(t: Translator, id: string): Confirmation {
  return {
    question: t.text('confirm.deleteTable.question', { id }),
    effect: t.text('confirm.deleteTable.effect'),
    yes: t.text('confirm.deleteTable.yes'),
    danger: true,
  };
}

/** The store's freight tables: download, delete, and the upload form (its progress bar needs the page's module). */
function freightView(t: Translator, store: { id: string }, tables: FreightTableView[], csrf: string, use: FreightUse): string {
  const api = `/seller/v1/stores/${encodeURIComponent(store.id)}/shipping/freight-tables`;
  const base = `/console/stores/${encodeURIComponent(store.id)}/shipping/freight-tables`;
  const rows = tables.map((table) => [
    `<code>${escapeHtml(table.id)}</code>`,
    escapeHtml(table.name),
    table.distributionCenterId ? `<code>${escapeHtml(table.distributionCenterId)}</code>` : '—',
    t.number(table.rows),
    consoleTimeHtml(t, table.updatedAt),
    `<a href="${base}/${encodeURIComponent(table.id)}">${t.html('freight.rows.view', { id: table.id })}</a> <a href="${api}/${encodeURIComponent(table.id)}?format=original" download>${t.html('freight.download', { id: table.id })}</a> ${confirmForm(
      t,
      {
        action: `${base}/${encodeURIComponent(table.id)}/delete`,
        csrf,
        label: t.text('freight.delete', { id: table.id }),
        confirm: deleteTableConfirmation(t, table.id),
      },
    )}`,
  ]);
  const list = tables.length
    ? dataTable({
        caption: t.text('shipping.freightTables'),
        label: t.text('shipping.freightTables'),
        columns: [
          { label: t.text('freight.col.id') },
          { label: t.text('shipping.col.table') },
          { label: t.text('shipping.centres') },
          { label: t.text('shipping.col.rows'), num: true },
          { label: t.text('shipping.col.updated') },
          { label: t.text('webhooks.col.actions') },
        ],
        rows,
      })
    : `<p>${t.html('freight.none')}</p>`;
  return `<h2 id="freight">${t.html('shipping.freightTables')}</h2>
${tables.length ? freightUseView(t, store, csrf, use) : ''}
${list}
<h3 id="freight-upload-heading">${t.html('freight.upload')}</h3>
<p class="muted">${t.html('freight.uploadHint')}</p>
<form id="freight-upload" data-api="${api}" data-xlsx="${XLSX_TYPE}" data-csrf="${escapeHtml(csrf)}" aria-labelledby="freight-upload-heading">
<label for="freight-file">${t.html('freight.file')}</label>
<input type="file" id="freight-file" name="file" accept=".csv,.xlsx,text/csv,${XLSX_TYPE}" required>
<label for="freight-id">${t.html('freight.col.id')}</label>
<input type="text" id="freight-id" name="table_id" required maxlength="32" pattern="[!-~]{1,32}" aria-describedby="freight-id-hint">
<p class="muted" id="freight-id-hint">${t.html('freight.idHint')}</p>
<label for="freight-name">${t.html('shipping.col.table')}</label>
<input type="text" id="freight-name" name="name" required maxlength="200">
<label for="freight-centre">${t.html('freight.centre')}</label>
<input type="text" id="freight-centre" name="distribution_center_id" maxlength="32">
<div class="actions"><button type="submit">${t.html('freight.submit')}</button></div>
<progress id="freight-progress" max="100" value="0" hidden aria-label="${escapeHtml(t.text('freight.progress'))}"></progress>
<div id="freight-result" data-done="${escapeHtml(t.text('freight.done'))}" data-failed="${escapeHtml(t.text('freight.failed'))}" data-problems="${escapeHtml(JSON.stringify(freightProblemCatalogue(t)))}"></div>
<noscript><p>${t.html('freight.noscript')}</p></noscript>
</form>`;
}

/** Whether quotes read the store's freight tables: as a method, only as backup rates, or not at all. */
export type FreightUse = 'method' | 'fallback' | 'unused';

/** What the tables are used for, and the one-button way to turn them on when no method reads them (D147). */
function freightUseView(t: Translator, store: { id: string }, csrf: string, use: FreightUse): string {
  if (use === 'method') return `<p>${t.html('freight.use.method')}</p>`;
  const action = `/console/stores/${encodeURIComponent(store.id)}/shipping/settings/freight-on`;
  return `<div class="notice freight-unused"><p>${t.html(use === 'fallback' ? 'freight.use.fallback' : 'freight.use.unused')}</p>
<form method="post" action="${action}">${hiddenFields({ csrf })}<button type="submit">${t.html('freight.use.turnOn')}</button></form></div>`;
}

export function shippingView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    /** The store's section navigation (ConsoleKit.storeNav). */
    nav: string;
    settings: ShippingSettings | null;
    /** A quote method's label in the catalogues (its module's `labelKey`). */
    methodLabel: (method: string) => MessageKey | LocalizedText;
    freightTables: FreightTableView[];
    freightUse: FreightUse;
    calls: QuoteCallRecord[];
    stats: QuoteStats;
    window: QuoteWindow;
    outcome: 'ok' | 'failed' | null;
    csrf: string;
    report: QuoteCheckReport | null;
    testError: string | null;
    testCalls: number;
    /** The table id just uploaded or deleted, for the notice. */
    uploaded: string | null;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/shipping`;
  const option = (value: string, label: string, selected: boolean) =>
    `<option value="${value}"${selected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const calls = input.calls
    .map(
      (c) =>
        `<tr><td>${consoleTimeHtml(t, c.created_at)}</td><td>${t.html(`shipping.purpose.${c.purpose}` as MessageKey)}</td><td><span class="pill${c.outcome === 'ok' ? '' : ' bad'}">${escapeHtml(outcomeLabel(t, c.outcome))}</span></td><td class="num">${t.html('delivery.latency', { ms: Math.round(Number(c.latency_ms)) })}</td><td class="num">${c.http_status ?? '—'}</td><td>${c.fallback_used === 1 ? t.html('shipping.yes') : ''}</td></tr>`,
    )
    .join('\n');
  const busy = input.stats.buckets.filter((b) => b.calls > 0);
  const bucketRows = busy
    .map(
      (b) =>
        `<tr><td>${consoleTimeHtml(t, b.start)}</td><td class="num">${t.number(b.calls)}</td><td class="num">${t.number(b.ok)}</td><td class="num">${t.number(b.business)}</td><td class="num">${t.number(b.failed - b.business)}</td><td class="num">${b.p50Ms === null ? '—' : t.number(b.p50Ms)}</td><td class="num">${b.p99Ms === null ? '—' : t.number(b.p99Ms)}</td></tr>`,
    )
    .join('');
  const labels = {
    time: t.text('shipping.col.when'),
    latency: t.text('shipping.chart.latency'),
    outcomes: t.text('shipping.chart.outcomes'),
    deadline: t.text('shipping.chart.deadline'),
    ok: t.text('shipping.chart.ok'),
    failed: t.text('shipping.chart.failed'),
    business: t.text('shipping.chart.business'),
    endpointFailed: t.text('shipping.chart.endpointFailed'),
  };
  return `${storeCrumbs(t, input.store)}
${input.nav}
<h1>${t.html('shipping.title', { store: input.store.name })}</h1>
<h2>${t.html('shipping.settings')}</h2>
${settingsView(t, input.settings, input.methodLabel)}
<p><a href="${base}/settings">${t.html('settings.link')}</a></p>
<p><a href="${base}/preview">${t.html('preview.link')}</a></p>
${input.uploaded ? `<p class="notice" role="status">${t.html('freight.uploaded', { id: input.uploaded })}</p>` : ''}
${freightView(t, input.store, input.freightTables, input.csrf, input.freightUse)}
<h2 id="test">${t.html('shipping.test.heading')}</h2>
<p>${t.html('shipping.test.intro', { calls: input.testCalls, seconds: input.testCalls })}</p>
${input.testError ? `<p class="error" role="alert">${escapeHtml(input.testError)}</p>` : ''}
<form method="post" action="${base}/test">
${hiddenFields({ csrf: input.csrf })}
<button type="submit"${input.settings?.url ? '' : ' disabled'}>${t.html('shipping.test.submit')}</button>
</form>
${input.report ? reportView(t, input.report) : ''}
<h2 id="log">${t.html('shipping.log')}</h2>
<form method="get" action="${base}" class="inline">
<label for="window">${t.html('shipping.filter.window')}</label>
<select id="window" name="window">${option('1h', t.text('shipping.window.1h'), input.window === '1h')}${option('24h', t.text('shipping.window.24h'), input.window === '24h')}</select>
<label for="outcome">${t.html('shipping.filter.outcome')}</label>
<select id="outcome" name="outcome">${option('', t.text('webhooks.filter.all'), input.outcome === null)}${option('ok', t.text('shipping.chart.ok'), input.outcome === 'ok')}${option('failed', t.text('shipping.chart.failed'), input.outcome === 'failed')}</select>
<button type="submit" class="secondary">${t.html('webhooks.filter.apply')}</button>
</form>
<figure>
<div id="quote-chart" class="chart" data-labels="${escapeHtml(JSON.stringify(labels))}"></div>
<figcaption>${t.html('shipping.chart.caption', { deadline: input.stats.deadlineMs })}${input.stats.truncated ? ` ${t.html('shipping.chart.truncated')}` : ''}</figcaption>
</figure>
${dataBlock('quote-stats', input.stats)}
${
  busy.length > 0
    ? `<details><summary>${t.html('shipping.chart.table')}</summary><div class="table-wrap"><table><caption>${t.html('shipping.chart.table')}</caption><thead><tr><th scope="col">${t.html('shipping.col.from')}</th><th scope="col">${t.html('shipping.col.calls')}</th><th scope="col">${t.html('shipping.chart.ok')}</th><th scope="col">${t.html('shipping.chart.business')}</th><th scope="col">${t.html('shipping.chart.endpointFailed')}</th><th scope="col">${t.html('health.col.p50')}</th><th scope="col">${t.html('health.col.p99')}</th></tr></thead><tbody>${bucketRows}</tbody></table></div></details>`
    : ''
}
${
  input.calls.length === 0
    ? `<p>${t.html('shipping.noCalls')}</p>`
    : `<div class="table-wrap"><table aria-labelledby="log"><thead><tr><th scope="col">${t.html('shipping.col.when')}</th><th scope="col">${t.html('shipping.col.purpose')}</th><th scope="col">${t.html('shipping.col.outcome')}</th><th scope="col">${t.html('delivery.col.latency')}</th><th scope="col">${t.html('delivery.col.status')}</th><th scope="col">${t.html('shipping.col.fallback')}</th></tr></thead><tbody>${calls}</tbody></table></div>`
}`;
}
