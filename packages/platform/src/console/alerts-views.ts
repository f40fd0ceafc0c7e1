import { escapeHtml, hiddenFields } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { consoleTimeHtml } from './console-kit.js';

/**
 * The store's operational webhooks page (D141): where news about its
 * endpoints goes (`endpoint.failing`, `endpoint.disabled`), set or removed
 * here, and the latest such news with how its sending went. The address is
 * shown masked (D65); its secret only once, on the page that answers setting it.
 */
export interface AlertRowView {
  type: string;
  createdAt: string;
  sentAt: string | null;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
}

function alertState(row: AlertRowView): 'succeeded' | 'pending' | 'failing' | 'dead' {
  if (row.sentAt) return 'succeeded';
  if (!row.nextAttemptAt) return 'dead';
  return row.attempts > 0 ? 'failing' : 'pending';
}

export function alertsView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    endpoint: { url: string; updatedAt: string } | undefined;
    alerts: AlertRowView[];
    csrf: string;
    notice: string;
    error: string | null;
    value: string;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/webhooks`;
  const current = input.endpoint
    ? `<p>${t.html('alerts.current', { url: { html: `<code>${escapeHtml(input.endpoint.url)}</code>` }, when: { html: consoleTimeHtml(t, input.endpoint.updatedAt) } })}</p>
<form method="post" action="${base}/alerts/remove" class="cell-form" data-confirm="${escapeHtml(t.text('alerts.remove.question'))}" data-confirm-effect="${escapeHtml(t.text('alerts.remove.effect'))}" data-confirm-yes="${escapeHtml(t.text('alerts.remove'))}" data-confirm-no="${escapeHtml(t.text('confirm.cancel'))}">${hiddenFields({ csrf: input.csrf })}<button type="submit" class="secondary">${t.html('alerts.remove')}</button></form>`
    : `<p>${t.html('alerts.none')}</p>`;
  const error = input.error ? `<p class="error" role="alert" id="alert-url-error">${escapeHtml(input.error)}</p>` : '';
  const rows = input.alerts
    .map((a) => {
      const state = alertState(a);
      return `<tr><td data-label="${escapeHtml(t.text('alerts.col.type'))}"><code>${escapeHtml(a.type)}</code> ${t.html(a.type === 'endpoint.disabled' ? 'alerts.type.disabled' : 'alerts.type.failing')}</td><td data-label="${escapeHtml(t.text('webhooks.col.created'))}">${consoleTimeHtml(t, a.createdAt)}</td><td data-label="${escapeHtml(t.text('webhooks.col.status'))}"><span class="pill st-${state}">${t.html(`webhooks.status.${state}`)}</span></td><td class="num" data-label="${escapeHtml(t.text('webhooks.col.attempts'))}">${t.number(a.attempts)}</td><td class="num" data-label="${escapeHtml(t.text('webhooks.col.lastStatus'))}">${a.lastStatusCode ?? '—'}</td></tr>`;
    })
    .join('');
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.crumbs'))}"><ol><li><a href="/console">${t.html('console.stores.title')}</a></li><li><a href="${base}">${escapeHtml(t.text('webhooks.title', { store: input.store.name }))}</a></li><li aria-current="page">${t.html('alerts.crumb')}</li></ol></nav>
<h1>${t.html('alerts.title')}</h1>
${input.notice}
<p>${t.html('alerts.intro', { failing: { html: '<code>endpoint.failing</code>' }, disabled: { html: '<code>endpoint.disabled</code>' } })}</p>
${current}
<h2 id="alert-url">${t.html(input.endpoint ? 'alerts.change' : 'alerts.set')}</h2>
<form method="post" action="${base}/alerts" aria-labelledby="alert-url">
${hiddenFields({ csrf: input.csrf })}
<label for="url">${t.html('alerts.url')}</label>
<input type="url" id="url" name="url" required maxlength="2048" placeholder="https://" value="${escapeHtml(input.value)}" aria-describedby="${input.error ? 'alert-url-error ' : ''}alert-url-help"${input.error ? ' aria-invalid="true"' : ''}>
<p class="muted" id="alert-url-help">${t.html('alerts.urlHelp')}</p>
${error}
<div class="actions"><button type="submit">${t.html('alerts.save')}</button></div>
</form>
<h2 id="alert-log">${t.html('alerts.log')}</h2>
${rows ? `<div class="table-wrap"><table class="stack" aria-labelledby="alert-log"><thead><tr><th scope="col">${t.html('alerts.col.type')}</th><th scope="col">${t.html('webhooks.col.created')}</th><th scope="col">${t.html('webhooks.col.status')}</th><th scope="col">${t.html('webhooks.col.attempts')}</th><th scope="col">${t.html('webhooks.col.lastStatus')}</th></tr></thead><tbody>${rows}</tbody></table></div>` : `<p>${t.html('alerts.noAlerts')}</p>`}`;
}

/** The page answering a new address: its signing secret, shown this once (nothing of the request reflected, D98). */
export function alertSecretView(t: Translator, input: { store: { id: string }; secret: string }): string {
  const back = `/console/stores/${encodeURIComponent(input.store.id)}/webhooks/alerts`;
  return `<h1>${t.html('alerts.secret.title')}</h1>
<p>${t.html('alerts.secret.text')}</p>
<label for="alert-secret">${t.html('alerts.secret.label')}</label>
<input type="text" id="alert-secret" readonly value="${escapeHtml(input.secret)}" autocomplete="off" spellcheck="false">
<button type="button" class="link copy" data-copy="${escapeHtml(input.secret)}" data-copied="${escapeHtml(t.text('webhooks.copied'))}" hidden>${t.html('secret.copy')}</button>
<p><a href="${back}">${t.html('alerts.secret.back')}</a></p>`;
}
