import { escapeHtml, hiddenFields } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { confirmForm } from './confirm-views.js';
import { consoleTimeHtml } from './console-kit.js';
import { dataTable } from './table-views.js';

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

export function operatorNav(t: Translator, current: 'accounts' | 'health' | 'keys'): string {
  const link = (href: string, key: 'operator.nav.accounts' | 'operator.nav.health' | 'operator.nav.keys', here: boolean) =>
    `<li><a href="${href}"${here ? ' aria-current="page"' : ''}>${t.html(key)}</a></li>`;
  return `<nav class="sections" aria-label="${escapeHtml(t.text('operator.nav.label'))}"><ul>${link('/console/operator', 'operator.nav.accounts', current === 'accounts')}${link('/console/operator/health', 'operator.nav.health', current === 'health')}${link('/console/operator/keys', 'operator.nav.keys', current === 'keys')}</ul></nav>`;
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

/** "First"/"Next" links of one of the accounts lists, the other list's position and the search kept. */
function pagingLinks(
  t: Translator,
  input: { search: string; own: 'sellers' | 'clients'; offset: number; total: number; size: number; otherOffset: number },
  what: string,
): string {
  const other = input.own === 'sellers' ? 'clients' : 'sellers';
  const href = (offset: number) => {
    const params = new URLSearchParams();
    if (input.search) params.set('q', input.search);
    if (offset > 0) params.set(`${input.own}_offset`, String(offset));
    if (input.otherOffset > 0) params.set(`${other}_offset`, String(input.otherOffset));
    const search = params.toString();
    return `/console/operator${search ? `?${search}` : ''}#${input.own}`;
  };
  const links = [
    input.offset > 0 ? `<li><a href="${escapeHtml(href(0))}">${t.html('operator.page.first', { what })}</a></li>` : '',
    input.offset + input.size < input.total
      ? `<li><a href="${escapeHtml(href(input.offset + input.size))}" rel="next">${t.html('operator.page.next', { what })}</a></li>`
      : '',
  ].join('');
  return links ? `<nav aria-label="${escapeHtml(what)}"><ul class="plain inline-list">${links}</ul></nav>` : '';
}

export function accountsView(
  t: Translator,
  input: {
    csrf: string;
    sellers: Array<{ id: string; name: string; login: string; stores: number; createdAt: string }>;
    /** `rateLimit`: the app's API rate limit in words (spec-notes I20). */
    clients: Array<{ id: string; name: string; createdAt: string; rateLimit: string }>;
    /** The search box's words ('' for none). */
    search: string;
    /** What the search found besides sellers and apps: stores, a delivery (HTML, '' without a search). */
    found: string;
    paging: { sellers: { offset: number; total: number }; clients: { offset: number; total: number }; size: number };
    message: string | null;
    error: string | null;
    form: { name?: string; login?: string; store?: string };
  },
): string {
  const sellerRows = input.sellers.map((s) => [
    `<a href="/console/operator/sellers/${encodeURIComponent(s.id)}">${escapeHtml(s.name)}</a>`,
    `<code>${escapeHtml(s.login)}</code>`,
    t.number(s.stores),
    consoleTimeHtml(t, s.createdAt),
  ]);
  const clientRows = input.clients.map((c) => [
    escapeHtml(c.name),
    `<code>${escapeHtml(c.id)}</code>`,
    consoleTimeHtml(t, c.createdAt),
    `${escapeHtml(c.rateLimit)} <a href="/console/operator/clients/${encodeURIComponent(c.id)}/rate-limit">${t.html('operator.rateLimit.change', { app: c.name })}</a>`,
    confirmForm(t, {
      action: `/console/operator/clients/${encodeURIComponent(c.id)}/delete`,
      csrf: input.csrf,
      label: t.text('operator.client.delete', { app: c.name }),
      confirm: {
        question: t.text('confirm.deleteClient.question', { app: c.name }),
        effect: t.text('operator.client.deleteEffect'),
        yes: t.text('confirm.deleteClient.yes'),
        danger: true,
      },
    }),
  ]);
  const p = input.paging;
  const count = (key: 'operator.sellers.count' | 'operator.clients.count', page: { offset: number; total: number }) =>
    `<p class="muted">${t.html(key, { count: page.total, more: page.offset + p.size < page.total ? 'yes' : 'no' })}</p>`;
  return `${operatorNav(t, 'accounts')}
<h1>${t.html('operator.accounts.title')}</h1>
${notice(input.message)}
<form method="get" action="/console/operator" class="inline" role="search">
<label for="q">${t.html('operator.search')}</label>
<input type="search" id="q" name="q" maxlength="200" value="${escapeHtml(input.search)}" aria-describedby="q-hint">
<button type="submit" class="secondary">${t.html('operator.search.submit')}</button>
${input.search ? `<a href="/console/operator">${t.html('operator.search.clear')}</a>` : ''}
</form>
<p class="muted" id="q-hint">${t.html('operator.search.hint')}</p>
${input.found}
<h2 id="sellers">${t.html('operator.sellers')}</h2>
${count('operator.sellers.count', p.sellers)}
${
  input.sellers.length === 0
    ? input.search
      ? ''
      : `<p>${t.html('operator.sellers.none')}</p>`
    : dataTable({
        labelledBy: 'sellers',
        label: t.text('operator.sellers'),
        columns: [
          { label: t.text('operator.seller.name') },
          { label: t.text('login.login') },
          { label: t.text('operator.col.stores'), num: true },
          { label: t.text('records.field.created_at') },
        ],
        rows: sellerRows,
      })
}
${pagingLinks(t, { search: input.search, own: 'sellers', offset: p.sellers.offset, total: p.sellers.total, size: p.size, otherOffset: p.clients.offset }, t.text('operator.sellers'))}
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
${count('operator.clients.count', p.clients)}
${
  input.clients.length === 0
    ? input.search
      ? ''
      : `<p>${t.html('operator.clients.none')}</p>`
    : dataTable({
        labelledBy: 'clients',
        label: t.text('operator.clients'),
        columns: [
          { label: t.text('apps.col.app') },
          { label: t.text('operator.col.clientId') },
          { label: t.text('records.field.created_at') },
          { label: t.text('operator.col.rateLimit') },
          { label: t.text('webhooks.col.actions') },
        ],
        rows: clientRows,
      })
}
${pagingLinks(t, { search: input.search, own: 'clients', offset: p.clients.offset, total: p.clients.total, size: p.size, otherOffset: p.sellers.offset }, t.text('operator.clients'))}`;
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
        `<li><form method="post" action="${base}/stores/${encodeURIComponent(store.id)}" class="inline">${hiddenFields({ csrf: input.csrf })}<label for="store-${i}">${t.html('operator.store.nameOf', { n: i + 1 })}</label><input type="text" id="store-${i}" name="name" required maxlength="200" value="${escapeHtml(store.name)}"><button type="submit" class="secondary">${t.html('operator.store.rename')}</button></form> <a href="/console/operator/stores/${encodeURIComponent(store.id)}/webhooks">${t.html('operator.webhooks.title', { store: store.name })}</a> <a href="/console/operator/stores/${encodeURIComponent(store.id)}/shipping/preview">${t.html('preview.operatorLink', { store: store.name })}</a> ${confirmForm(
          t,
          {
            action: `${base}/stores/${encodeURIComponent(store.id)}/delete`,
            csrf: input.csrf,
            label: t.text('operator.store.delete', { store: store.name }),
            confirm: {
              question: t.text('confirm.deleteStore.question', { store: store.name }),
              effect: t.text('confirm.deleteStore.effect'),
              yes: t.text('confirm.deleteStore.yes'),
              danger: true,
            },
          },
        )}</li>`,
    )
    .join('\n');
  return `${operatorNav(t, 'accounts')}
<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.crumbs'))}"><ol><li><a href="/console/operator">${t.html('operator.accounts.title')}</a></li><li aria-current="page">${escapeHtml(input.seller.name)}</li></ol></nav>
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

/** The sandbox clock's form (sandbox mode only): the platform's time, how far it was moved, and a step forward. */
export interface ClockPanel {
  now: Date;
  offsetSeconds: number;
  csrf: string;
  message: string | null;
  error: string | null;
}

function clockView(t: Translator, clock: ClockPanel): string {
  return `<h2 id="clock">${t.html('operator.clock.title')}</h2>
<p>${t.html('operator.clock.intro')}</p>
${notice(clock.message)}${error(clock.error)}
<p>${t.html('operator.clock.now')} ${consoleTimeHtml(t, clock.now.toISOString())} — ${t.html('operator.clock.ahead', { hours: Math.round((clock.offsetSeconds / 3600) * 100) / 100 })}</p>
<form method="post" action="/console/operator/clock" class="inline" aria-labelledby="clock">
${hiddenFields({ csrf: clock.csrf })}
<label for="clock-duration">${t.html('operator.clock.duration')}</label>
<input type="text" id="clock-duration" name="duration" required maxlength="40" placeholder="2h" aria-describedby="clock-hint">
<button type="submit">${t.html('operator.clock.advance')}</button>
</form>
<p class="muted" id="clock-hint">${t.html('operator.clock.hint')}</p>`;
}

export function healthView(t: Translator, input: { points: HealthPoint[]; truncated: boolean; clock?: ClockPanel }): string {
  const labels = {
    time: t.text('shipping.col.when'),
    backlog: t.text('health.chart.backlog'),
    oldest: t.text('health.chart.oldest'),
    deliveries: t.text('health.chart.deliveries'),
    succeeded: t.text('health.chart.succeeded'),
    failed: t.text('health.chart.failed'),
    quotes: t.text('health.chart.quotes'),
  };
  const dash = (value: number | null) => (value === null ? '—' : t.number(value));
  const rows = input.points
    .filter((p) => p.backlog > 0 || p.succeeded > 0 || p.failed > 0 || p.quoteP50Ms !== null)
    .map((p) => [
      consoleTimeHtml(t, p.start),
      t.number(p.backlog),
      dash(p.oldestPendingSeconds),
      t.number(p.succeeded),
      t.number(p.failed),
      dash(p.quoteP50Ms),
      dash(p.quoteP99Ms),
    ]);
  const data = JSON.stringify(input.points).replace(/</g, '\\u003c');
  return `${operatorNav(t, 'health')}
<h1>${t.html('health.title')}</h1>
<p>${t.html('health.intro')}</p>
<figure>
<div id="health-chart" class="chart" data-labels="${escapeHtml(JSON.stringify(labels))}"></div>
<figcaption>${t.html('health.caption')}${input.truncated ? ` ${t.html('health.truncated')}` : ''}</figcaption>
</figure>
<script type="application/json" id="health-data">${data}</script>
<details><summary>${t.html('shipping.chart.table')}</summary>${dataTable({
    caption: t.text('shipping.chart.table'),
    label: t.text('shipping.chart.table'),
    columns: [
      { label: t.text('shipping.col.from') },
      { label: t.text('health.chart.backlog'), num: true },
      { label: t.text('health.chart.oldest'), num: true },
      { label: t.text('health.col.succeededPerMinute'), num: true },
      { label: t.text('health.col.failedPerMinute'), num: true },
      { label: t.text('health.col.p50'), num: true },
      { label: t.text('health.col.p99'), num: true },
    ],
    rows,
  })}</details>
${input.clock ? clockView(t, input.clock) : ''}`;
}
