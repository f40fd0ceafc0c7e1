import type { PlatformError } from '../core/platform-error.js';
import { escapeHtml, hiddenFields } from '../http/html-page.js';
import { type LocalizedText, labelText, type MessageKey, type Translator } from '../i18n/i18n.js';
import type { ShippingSettings } from '../shipping/index.js';
import { storePath } from './console-kit.js';
import { crumbs } from './console-views.js';

/** The forms of the settings page, each posted to `settings/{part}` on its own. */
export const SETTINGS_PARTS = ['methods', 'url', 'centres', 'fallback', 'gateway'] as const;
export type SettingsPart = (typeof SETTINGS_PARTS)[number];

/** Blank distribution-centre rows offered below the stored ones (the form adds no row by script). */
const BLANK_CENTRE_ROWS = 2;

export interface SettingsPageInput {
  store: { id: string; name: string };
  settings: ShippingSettings | null;
  /** The registry's methods, in order, with their labels. */
  methods: ReadonlyArray<{ name: string; label: MessageKey | LocalizedText; backedUp: boolean }>;
  gatewayKinds: readonly string[];
  csrf: string;
  /** The part just saved (its notice), or refused (its alert and the values posted). */
  saved: SettingsPart | null;
  refused: { part: SettingsPart; message: string; posted: Record<string, unknown> } | null;
}

/**
 * A refusal of the settings (the API's own 422) in the page's language: the
 * field by its form label and the reason by the English sentence's pattern,
 * as the freight upload does (D81); a sentence with no pattern falls back to
 * the slug's generic words.
 */
const REASONS: Array<[RegExp, MessageKey]> = [
  [/^is required when the gateway is first set$/, 'settings.reason.credentialFirst'],
  [/^is required by the seller_api method$/, 'settings.reason.urlNeeded'],
  [/^is required by the gateway method$/, 'settings.reason.gatewayNeeded'],
  [/^is required \(or methods\)$/, 'settings.reason.oneMethod'],
  [/^is required/, 'settings.reason.required'],
  [/^must use the HTTPS scheme$/, 'settings.reason.https'],
  [/^must be an http or https URL$/, 'settings.reason.httpUrl'],
  [/^must be an absolute URL$/, 'settings.reason.absolute'],
  [/^must not contain a port/, 'settings.reason.port'],
  [/^must not contain credentials/, 'settings.reason.credentials'],
  [/^must not contain a fragment/, 'settings.reason.fragment'],
  [/^must be printable ASCII/, 'settings.reason.ascii'],
  [/^points to a refused address/, 'settings.reason.refused'],
  [/^host name does not resolve$/, 'settings.reason.resolve'],
  [/^must be 8 digits$|^Expected string to match/, 'settings.reason.zipcode'],
  [/^must be (?:1 to|at most) ([0-9]+) characters$|^Expected string length less or equal to ([0-9]+)$/, 'settings.reason.length'],
  [/^appears twice$/, 'settings.reason.twice'],
  [/^backs up a/, 'settings.reason.fallbackNeeds'],
  [/is already one of the methods/, 'settings.reason.fallbackMerged'],
  [/^is not a registered gateway$/, 'settings.reason.unregistered'],
  [/gateway quotes from a distribution centre/, 'settings.reason.needsOrigin'],
  [/^is only for a seller_api_contract gateway$/, 'settings.reason.idOnly'],
];

function fieldLabel(t: Translator, field: string): string {
  const centre = /^distribution_centers\.([0-9]+)\.(id|zipcode)$/.exec(field);
  if (centre) return t.text(`settings.field.centre.${centre[2] as 'id' | 'zipcode'}`, { n: Number(centre[1]) + 1 });
  if (field === 'url') return t.text('shipping.url');
  if (field === 'fallback') return t.text('shipping.fallback');
  if (field === 'gateway.credential') return t.text('settings.field.credential');
  if (field === 'gateway.id') return t.text('settings.field.gatewayId');
  if (field.startsWith('gateway')) return t.text('shipping.gateway');
  if (field.startsWith('distribution_centers')) return t.text('shipping.centres');
  return t.text('shipping.methods');
}

export function settingsRefusal(t: Translator, error: PlatformError): string {
  const detail = error.details[0];
  if (!detail) return t.text('console.error.generic', { status: error.statusCode });
  const field = fieldLabel(t, detail.field);
  for (const [pattern, key] of REASONS) {
    const match = pattern.exec(detail.message);
    if (match) return t.text('settings.refusal', { field, reason: t.text(key, { a: match[1] ?? match[2] ?? '' }) });
  }
  return t.text('console.error.detail', { field, slug: detail.slug });
}

const checked = (on: boolean) => (on ? ' checked' : '');
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** One form: its heading, the saved notice or the refusal alert, the CSRF token and a submit button. */
function partForm(t: Translator, input: SettingsPageInput, part: SettingsPart, fields: string): string {
  const action = storePath(input.store.id, `/shipping/settings/${part}`);
  const saved = input.saved === part ? `<p class="notice" role="status">${t.html('settings.saved')}</p>` : '';
  const refused =
    input.refused?.part === part
      ? `<p class="error" role="alert" id="${part}-error">${escapeHtml(input.refused.message)}</p>`
      : '';
  return `<section class="settings-part" aria-labelledby="${part}-heading">
<h2 id="${part}-heading">${t.html(`settings.${part}.heading`)}</h2>
<p class="muted">${t.html(`settings.${part}.hint`)}</p>
${saved}${refused}
<form method="post" action="${action}" class="settings-form"${refused ? ` aria-describedby="${part}-error"` : ''}>
${hiddenFields({ csrf: input.csrf })}
${fields}
<div class="actions"><button type="submit">${t.html(`settings.${part}.submit`)}</button></div>
</form>
</section>`;
}

function methodsFields(t: Translator, input: SettingsPageInput): string {
  const chosen = input.settings?.methods ?? [];
  const rows = input.methods.map((method, i) => {
    const position = chosen.indexOf(method.name);
    const label = escapeHtml(labelText(t, method.label));
    return `<div class="method-row">
<input type="checkbox" id="method-${method.name}" name="method" value="${method.name}"${checked(position >= 0)}>
<label for="method-${method.name}">${label}</label>
<label for="order-${method.name}" class="order-label">${t.html('settings.methods.order', { method: labelText(t, method.label) })}</label>
<input type="number" id="order-${method.name}" name="order_${method.name}" min="1" max="${input.methods.length}" value="${position >= 0 ? position + 1 : i + 1}">
</div>`;
  });
  return `<fieldset><legend>${t.html('shipping.methods')}</legend>${rows.join('\n')}</fieldset>`;
}

function urlFields(t: Translator, input: SettingsPageInput): string {
  const posted = input.refused?.part === 'url' ? text(input.refused.posted.url) : '';
  const current = input.settings?.url ? t.html('settings.url.current', { url: shownUrl(input.settings.url) }) : '';
  return `${current ? `<p>${current}</p>` : ''}
<label for="settings-url">${t.html('shipping.url')}</label>
<input type="url" id="settings-url" name="url" required maxlength="2048" value="${escapeHtml(posted)}" autocomplete="off" spellcheck="false">`;
}

function centresFields(t: Translator, input: SettingsPageInput): string {
  const posted = input.refused?.part === 'centres' ? input.refused.posted : null;
  const stored = input.settings?.distributionCenters ?? [];
  const count = posted ? Number(posted.rows) || 0 : stored.length + BLANK_CENTRE_ROWS;
  const rows = Array.from({ length: Math.min(count, 100) }, (_, i) => {
    const id = posted ? text(posted[`id_${i}`]) : (stored[i]?.id ?? '');
    const zipcode = posted ? text(posted[`zipcode_${i}`]) : (stored[i]?.zipcode ?? '');
    const n = i + 1;
    return `<div class="centre-row">
<label for="centre-id-${i}">${t.html('settings.field.centre.id', { n })}</label>
<input type="text" id="centre-id-${i}" name="id_${i}" maxlength="64" value="${escapeHtml(id)}">
<label for="centre-zipcode-${i}">${t.html('settings.field.centre.zipcode', { n })}</label>
<input type="text" id="centre-zipcode-${i}" name="zipcode_${i}" inputmode="numeric" maxlength="8" pattern="[0-9]{8}" value="${escapeHtml(zipcode)}">
</div>`;
  });
  return `${hiddenFields({ rows: String(rows.length) })}${rows.join('\n')}`;
}

function fallbackFields(t: Translator, input: SettingsPageInput): string {
  return `<input type="checkbox" id="settings-fallback" name="fallback" value="freight_table"${checked(input.settings?.fallback === 'freight_table')}>
<label for="settings-fallback">${t.html('settings.fallback.label')}</label>`;
}

function gatewayFields(t: Translator, input: SettingsPageInput): string {
  const gateway = input.settings?.gateway;
  const options = input.gatewayKinds
    .map(
      (kind) =>
        `<option value="${kind}"${gateway?.kind === kind ? ' selected' : ''}>${t.html('shipping.gateway.kind', { kind })}</option>`,
    )
    .join('');
  // D57: the credential is write-only; the field is always empty and says whether one is stored.
  return `<label for="gateway-kind">${t.html('settings.gateway.kind')}</label>
<select id="gateway-kind" name="kind">${options}</select>
<label for="gateway-id">${t.html('settings.field.gatewayId')}</label>
<input type="text" id="gateway-id" name="id" maxlength="64" value="${escapeHtml(gateway?.id ?? '')}" aria-describedby="gateway-id-hint">
<p class="muted" id="gateway-id-hint">${t.html('settings.gateway.idHint')}</p>
<label for="gateway-credential">${t.html('settings.field.credential')}</label>
<input type="password" id="gateway-credential" name="credential" maxlength="4096" autocomplete="new-password" value="" aria-describedby="gateway-credential-hint">
<p class="muted" id="gateway-credential-hint">${t.html(gateway ? 'settings.gateway.credentialKept' : 'settings.gateway.credentialFirst')}</p>`;
}

/** The URL as the page shows it: the query may hold the seller's token (spec "Authentication" rule 12). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '—';
  }
}

/** The settings page: one form per part, each saved through the API's own rules. */
export function shippingSettingsView(t: Translator, input: SettingsPageInput): string {
  const shipping = storePath(input.store.id, '/shipping');
  return `${crumbs(
    [
      { href: '/console', label: t.text('console.stores.title') },
      { href: storePath(input.store.id, '/webhooks'), label: input.store.name },
      { href: shipping, label: t.text('console.nav.shipping') },
      { label: t.text('settings.crumb') },
    ],
    t,
  )}
<h1>${t.html('settings.title', { store: input.store.name })}</h1>
<p><a href="${shipping}">${t.html('settings.back')}</a></p>
${partForm(t, input, 'methods', methodsFields(t, input))}
${partForm(t, input, 'url', urlFields(t, input))}
${partForm(t, input, 'centres', centresFields(t, input))}
${partForm(t, input, 'fallback', fallbackFields(t, input))}
${partForm(t, input, 'gateway', gatewayFields(t, input))}`;
}
