import { escapeHtml, hiddenFields } from '../http/html-page.js';
import { type LocalizedText, labelText, type Translator } from '../i18n/i18n.js';
import type { MessageKey } from '../i18n/messages-en.js';
import type { QuotePreview } from '../shipping/index.js';

/** The cart lines of the form: a few SKU + quantity pairs (empty ones are left out). */
export const PREVIEW_LINES = 3;

export interface PreviewForm {
  zipcode: string;
  lines: { sku: string; quantity: string }[];
}

type Option = { id: string; name: string; price: number; delivery_days: number };

const cents = (price: number) => Math.round(price * 100);

function optionCells(t: Translator, option: Option): string {
  const cell = (label: MessageKey, value: string, num = false) =>
    `<td${num ? ' class="num"' : ''} data-label="${escapeHtml(t.text(label))}">${value}</td>`;
  return [
    cell('preview.col.option', escapeHtml(option.name)),
    cell('preview.col.id', `<code>${escapeHtml(option.id)}</code>`),
    cell('preview.col.price', escapeHtml(t.money(cents(option.price))), true),
    cell('preview.col.days', t.html('preview.days', { days: option.delivery_days }), true),
  ].join('');
}

function shownView(t: Translator, preview: QuotePreview, labelOf: (method: string) => MessageKey | LocalizedText): string {
  const { shown } = preview;
  if (!shown.available) {
    const reason = shown.reason;
    return `<p class="notice" role="status" id="preview-unavailable">${t.html('preview.unavailable', { message: reason?.message ?? '', code: reason?.code ?? '' })}</p>`;
  }
  return shown.packages
    .map((pkg, i) => {
      const rows = pkg.options
        .map(
          (option) =>
            `<tr data-option-id="${escapeHtml(option.id)}">${optionCells(t, option)}<td data-label="${escapeHtml(t.text('preview.col.method'))}">${escapeHtml(labelText(t, labelOf(option.source)))}</td><td data-label="${escapeHtml(t.text('preview.col.label'))}">${option.labels.map((label) => `<span class="pill">${t.html(`preview.label.${label}`)}</span>`).join(' ')}</td></tr>`,
        )
        .join('');
      const why = preview.choice[i]?.same_option ? t.html('preview.why.same') : t.html('preview.why');
      return `<div class="table-wrap"><table class="stack preview-shown"><caption>${t.html('preview.shown.caption', { n: i + 1 })}</caption><thead><tr><th scope="col">${t.html('preview.col.option')}</th><th scope="col">${t.html('preview.col.id')}</th><th scope="col">${t.html('preview.col.price')}</th><th scope="col">${t.html('preview.col.days')}</th><th scope="col">${t.html('preview.col.method')}</th><th scope="col">${t.html('preview.col.label')}</th></tr></thead><tbody>${rows}</tbody></table></div>
<p>${why}</p>`;
    })
    .join('\n');
}

type MethodView = QuotePreview['methods'][number];

function methodView(t: Translator, answer: MethodView, label: string, headingLevel: 'h3' | 'h4' = 'h3'): string {
  const call = answer.call
    ? t.html('preview.call', {
        outcome: answer.call.outcome,
        ms: Math.round(answer.call.latency_ms),
        status: answer.call.http_status === null ? '—' : String(answer.call.http_status),
      })
    : t.html('preview.call.none');
  const detail = answer.call?.detail ? `<pre lang="en"><code>${escapeHtml(answer.call.detail.slice(0, 600))}</code></pre>` : '';
  const tables = answer.packages
    .map((pkg) => {
      const rows = pkg.options
        .map(
          (option) =>
            `<tr>${optionCells(t, option)}<td data-label="${escapeHtml(t.text('preview.col.merged'))}">${t.html(option.merged ? 'preview.merged.yes' : `preview.merged.${option.left_out_because ?? 'duplicate_id'}`)}</td></tr>`,
        )
        .join('');
      return `<div class="table-wrap"><table class="stack"><caption>${t.html('preview.method.caption', { method: label })}</caption><thead><tr><th scope="col">${t.html('preview.col.option')}</th><th scope="col">${t.html('preview.col.id')}</th><th scope="col">${t.html('preview.col.price')}</th><th scope="col">${t.html('preview.col.days')}</th><th scope="col">${t.html('preview.col.merged')}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
    })
    .join('');
  const none = answer.result === 'no_rate' ? t.html('preview.result.no_rate') : t.html('preview.noOptions');
  const kind = answer.gateway_kind ? ` <code>${escapeHtml(answer.gateway_kind)}</code>` : '';
  return `<section class="card"><${headingLevel}>${escapeHtml(label)}${kind}</${headingLevel}><p>${call}</p>${detail}${tables || `<p>${none}</p>`}</section>`;
}

/** The preview page: the form, then (once run) what the shopper sees and each method's answer. */
export function previewView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    nav: string;
    csrf: string;
    form: PreviewForm;
    preview: QuotePreview | null;
    error: string | null;
    labelOf: (method: string) => MessageKey | LocalizedText;
    /** The operator's page (D61): its own paths, back to the operator console. */
    operator?: boolean;
  },
): string {
  const base = input.operator
    ? `/console/operator/stores/${encodeURIComponent(input.store.id)}/shipping`
    : `/console/stores/${encodeURIComponent(input.store.id)}/shipping`;
  const back = input.operator
    ? `<a href="/console/operator">${t.html('preview.backOperator')}</a>`
    : `<a href="${base}">${t.html('preview.back')}</a>`;
  const lines = input.form.lines
    .map(
      (line, i) => `<div class="field-row">
<label for="sku-${i}">${t.html('preview.sku', { n: i + 1 })}</label><input id="sku-${i}" name="sku" maxlength="50" value="${escapeHtml(line.sku)}" autocomplete="off">
<label for="quantity-${i}">${t.html('preview.quantity', { n: i + 1 })}</label><input id="quantity-${i}" name="quantity" inputmode="numeric" pattern="[0-9]*" maxlength="6" value="${escapeHtml(line.quantity)}">
</div>`,
    )
    .join('\n');
  const form = `<form method="post" action="${base}/preview" id="preview-form">
${hiddenFields({ csrf: input.csrf })}
<label for="zipcode">${t.html('preview.zipcode')}</label>
<input id="zipcode" name="zipcode" inputmode="numeric" pattern="[0-9]{8}" maxlength="8" required value="${escapeHtml(input.form.zipcode)}" autocomplete="postal-code">
${lines}
<button type="submit">${t.html('preview.submit')}</button>
</form>`;
  const error = input.error ? `<p class="notice bad" role="alert">${t.html('preview.error', { detail: input.error })}</p>` : '';
  const preview = input.preview;
  const result = preview
    ? `<section aria-labelledby="preview-shown"><h2 id="preview-shown">${t.html('preview.shown')}</h2>${shownView(t, preview, input.labelOf)}</section>
<section aria-labelledby="preview-methods"><h2 id="preview-methods">${t.html('preview.methods')}</h2>
${preview.methods.map((answer) => methodView(t, answer, labelText(t, input.labelOf(answer.method)))).join('\n')}
${preview.fallback ? `${methodView(t, preview.fallback, t.text('preview.fallback'))}${preview.fallback.used ? `<p>${t.html('preview.fallback.used')}</p>` : ''}` : ''}
</section>`
    : '';
  const crumbs = input.operator
    ? `<li><a href="/console/operator">${t.html('preview.backOperator')}</a></li>`
    : `<li><a href="/console">${t.html('console.stores.title')}</a></li><li><a href="${base}">${escapeHtml(t.text('shipping.title', { store: input.store.name }))}</a></li>`;
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.crumbs'))}"><ol>${crumbs}<li aria-current="page">${t.html('preview.crumb')}</li></ol></nav>
${input.nav}
<h1>${t.html('preview.title', { store: input.store.name })}</h1>
<p>${t.html('preview.intro')}</p>
<p>${back}</p>
${error}
${form}
${result}`;
}
