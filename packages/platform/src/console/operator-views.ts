import { escapeHtml, hiddenFields } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { postButton } from './console-views.js';

/** HTML of the operator console: sellers, their stores, client apps, platform health. */

const error = (message: string | null) => (message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '');
const notice = (message: string | null) => (message ? `<p class="notice" role="status">${escapeHtml(message)}</p>` : '');

export function operatorSignInView(t: Translator, input: { csrf: string; error: string | null }): string {
  return `<h1>${t.html('operator.signin.title')}</h1>
<p>${t.html('operator.signin.intro')}</p>
${error(input.error)}
<form method="post" action="/console/operator/login">
${hiddenFields({ csrf: input.csrf })}
<label for="admin-token">${t.html('operator.signin.token')}</label>
<input type="password" id="admin-token" name="token" autocomplete="off" required>
<div class="actions"><button type="submit">${t.html('login.submit')}</button></div>
</form>`;
}

function operatorNav(t: Translator, current: 'accounts' | 'health'): string {
  const link = (href: string, key: 'operator.nav.accounts' | 'operator.nav.health', here: boolean) =>
    `<li><a href="${href}"${here ? ' aria-current="page"' : ''}>${t.html(key)}</a></li>`;
  return `<nav class="sections" aria-label="${escapeHtml(t.text('operator.nav.label'))}"><ul>${link('/console/operator', 'operator.nav.accounts', current === 'accounts')}${link('/console/operator/health', 'operator.nav.health', current === 'health')}</ul></nav>`;
}

function sellerFields(t: Translator, values: { name?: string; login?: string }, creating: boolean): string {
  return `<label for="seller-name">${t.html('operator.seller.name')}</label>
<input type="text" id="seller-name" name="name" required maxlength="200" value="${escapeHtml(values.name ?? '')}">
<label for="seller-login">${t.html('login.login')}</label>
<input type="text" id="seller-login" name="login" required maxlength="320" autocomplete="off" value="${escapeHtml(values.login ?? '')}">
<label for="seller-password">${t.html(creating ? 'login.password' : 'operator.seller.newPassword')}</label>
<input type="password" id="seller-password" name="password" ${creating ? 'required ' : ''}minlength="8" maxlength="1024" autocomplete="new-password" aria-describedby="password-hint">
<p class="muted" id="password-hint">${t.html(creating ? 'operator.seller.passwordHint' : 'operator.seller.newPasswordHint')}</p>`;
}

export function accountsView(
  t: Translator,
  input: {
    csrf: string;
    sellers: Array<{ id: string; name: string; login: string; stores: number; createdAt: string }>;
    clients: Array<{ id: string; name: string; createdAt: string }>;
    message: string | null;
    error: string | null;
    form: { name?: string; login?: string; store?: string };
  },
): string {
  const sellers = input.sellers
    .map(
      (s) =>
        `<tr><td><a href="/console/operator/sellers/${encodeURIComponent(s.id)}">${escapeHtml(s.name)}</a></td><td><code>${escapeHtml(s.login)}</code></td><td class="num">${t.number(s.stores)}</td><td>${escapeHtml(t.dateTime(s.createdAt))}</td></tr>`,
    )
    .join('\n');
  const clients = input.clients
    .map(
      (c) =>
        `<tr><td>${escapeHtml(c.name)}</td><td><code>${escapeHtml(c.id)}</code></td><td>${escapeHtml(t.dateTime(c.createdAt))}</td><td>${postButton(`/console/operator/clients/${encodeURIComponent(c.id)}/delete`, input.csrf, t.text('operator.client.delete', { app: c.name }))}</td></tr>`,
    )
    .join('\n');
  return `${operatorNav(t, 'accounts')}
<h1>${t.html('operator.accounts.title')}</h1>
${notice(input.message)}
<h2 id="sellers">${t.html('operator.sellers')}</h2>
${
  input.sellers.length === 0
    ? `<p>${t.html('operator.sellers.none')}</p>`
    : `<div class="table-wrap"><table aria-labelledby="sellers"><thead><tr><th scope="col">${t.html('operator.seller.name')}</th><th scope="col">${t.html('login.login')}</th><th scope="col">${t.html('operator.col.stores')}</th><th scope="col">${t.html('webhooks.col.created')}</th></tr></thead><tbody>${sellers}</tbody></table></div>`
}
<h2 id="new-seller">${t.html('operator.seller.create')}</h2>
${error(input.error)}
<form method="post" action="/console/operator/sellers" aria-labelledby="new-seller">
${hiddenFields({ csrf: input.csrf })}
${sellerFields(t, input.form, true)}
<label for="first-store">${t.html('operator.store.first')}</label>
<input type="text" id="first-store" name="store" required maxlength="200" value="${escapeHtml(input.form.store ?? '')}">
<div class="actions"><button type="submit">${t.html('operator.seller.createSubmit')}</button></div>
</form>
<h2 id="clients">${t.html('operator.clients')}</h2>
<p class="muted">${t.html('operator.client.deleteEffect')}</p>
${
  input.clients.length === 0
    ? `<p>${t.html('operator.clients.none')}</p>`
    : `<div class="table-wrap"><table aria-labelledby="clients"><thead><tr><th scope="col">${t.html('apps.col.app')}</th><th scope="col">client_id</th><th scope="col">${t.html('webhooks.col.created')}</th><th scope="col">${t.html('webhooks.col.actions')}</th></tr></thead><tbody>${clients}</tbody></table></div>`
}`;
}

export function sellerView(
  t: Translator,
  input: {
    csrf: string;
    seller: { id: string; name: string; login: string; tenants: Array<{ id: string; name: string }> };
    message: string | null;
    error: string | null;
  },
): string {
  const base = `/console/operator/sellers/${encodeURIComponent(input.seller.id)}`;
  const stores = input.seller.tenants
    .map(
      (store, i) =>
        `<li><form method="post" action="${base}/stores/${encodeURIComponent(store.id)}" class="inline">${hiddenFields({ csrf: input.csrf })}<label for="store-${i}">${t.html('operator.store.nameOf', { id: store.id.slice(0, 8) })}</label><input type="text" id="store-${i}" name="name" required maxlength="200" value="${escapeHtml(store.name)}"><button type="submit" class="secondary">${t.html('operator.store.rename')}</button></form></li>`,
    )
    .join('\n');
  return `${operatorNav(t, 'accounts')}
<nav class="crumbs" aria-label="${escapeHtml(t.text('operator.nav.label'))}"><ol><li><a href="/console/operator">${t.html('operator.accounts.title')}</a></li><li aria-current="page">${escapeHtml(input.seller.name)}</li></ol></nav>
<h1>${t.html('operator.seller.title', { name: input.seller.name })}</h1>
${notice(input.message)}
${error(input.error)}
<h2 id="edit">${t.html('operator.seller.edit')}</h2>
<form method="post" action="${base}" aria-labelledby="edit">
${hiddenFields({ csrf: input.csrf })}
${sellerFields(t, input.seller, false)}
<div class="actions"><button type="submit">${t.html('operator.seller.save')}</button></div>
</form>
<h2>${t.html('operator.stores')}</h2>
<ul class="plain">${stores}</ul>
<form method="post" action="${base}/stores" class="inline">
${hiddenFields({ csrf: input.csrf })}
<label for="new-store">${t.html('operator.store.new')}</label>
<input type="text" id="new-store" name="name" required maxlength="200">
<button type="submit" class="secondary">${t.html('operator.store.add')}</button>
</form>
<h2 id="delete">${t.html('operator.seller.delete')}</h2>
<p>${t.html('operator.seller.deleteEffect', { stores: input.seller.tenants.length })}</p>
<form method="post" action="${base}/delete">
${hiddenFields({ csrf: input.csrf })}
<label for="confirm">${t.html('operator.seller.confirm', { login: input.seller.login })}</label>
<input type="text" id="confirm" name="confirm" required autocomplete="off">
<div class="actions"><button type="submit" class="danger">${t.html('operator.seller.deleteSubmit', { name: input.seller.name })}</button></div>
</form>`;
}

export interface HealthPoint {
  start: string;
  backlog: number;
  oldestPendingSeconds: number | null;
  succeeded: number;
  failed: number;
  quoteP50Ms: number | null;
  quoteP99Ms: number | null;
}

export function healthView(t: Translator, input: { points: HealthPoint[]; truncated: boolean }): string {
  const labels = {
    time: t.text('shipping.col.when'),
    backlog: t.text('health.chart.backlog'),
    oldest: t.text('health.chart.oldest'),
    deliveries: t.text('health.chart.deliveries'),
    succeeded: t.text('health.chart.succeeded'),
    failed: t.text('health.chart.failed'),
    quotes: t.text('health.chart.quotes'),
  };
  const rows = input.points
    .filter((p) => p.backlog > 0 || p.succeeded > 0 || p.failed > 0 || p.quoteP50Ms !== null)
    .map(
      (p) =>
        `<tr><td>${escapeHtml(t.dateTime(p.start))}</td><td class="num">${t.number(p.backlog)}</td><td class="num">${p.oldestPendingSeconds ?? '—'}</td><td class="num">${t.number(p.succeeded)}</td><td class="num">${t.number(p.failed)}</td><td class="num">${p.quoteP50Ms ?? '—'}</td><td class="num">${p.quoteP99Ms ?? '—'}</td></tr>`,
    )
    .join('');
  const data = JSON.stringify(input.points).replace(/</g, '\\u003c');
  return `${operatorNav(t, 'health')}
<h1>${t.html('health.title')}</h1>
<p>${t.html('health.intro')}</p>
<figure>
<div id="health-chart" class="chart" data-labels="${escapeHtml(JSON.stringify(labels))}"></div>
<figcaption>${t.html('health.caption')}${input.truncated ? ` ${t.html('health.truncated')}` : ''}</figcaption>
</figure>
<script type="application/json" id="health-data">${data}</script>
<details><summary>${t.html('shipping.chart.table')}</summary><div class="table-wrap"><table><caption>${t.html('shipping.chart.table')}</caption><thead><tr><th scope="col">${t.html('shipping.col.from')}</th><th scope="col">${t.html('health.chart.backlog')}</th><th scope="col">${t.html('health.chart.oldest')}</th><th scope="col">${t.html('health.col.succeededPerMinute')}</th><th scope="col">${t.html('health.col.failedPerMinute')}</th><th scope="col">p50 (ms)</th><th scope="col">p99 (ms)</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}
