import type { Scope } from '@feira/contract';
import { escapeHtml, hiddenFields, languageSwitch } from '../http/html-page.js';
import type { Translator } from '../i18n/i18n.js';
import { scopeKey } from '../identity/index.js';
import { type Confirmation, confirmForm } from './confirm-views.js';
import { consoleTimeHtml, timeZoneLabel } from './console-kit.js';
import { dataTable } from './table-views.js';

/** HTML of the console pages, every string from the catalogues; tables have captions and header cells. */

export interface ConsoleChrome {
  t: Translator;
  csrf: string;
  sellerName: string | null;
  /** Where the language switch comes back to. */
  back: string;
  /** The operator console's sign-out (its own session); the seller's otherwise. */
  signOutAction?: string;
  /** The brand link's target and label key (the operator console has its own). */
  home?: { href: string; label: string };
  /** A notice of what the last action did (console-kit.ts noticeHtml), shown atop the page. */
  notice?: string;
}

export function chrome(c: ConsoleChrome): (main: string) => string {
  const signOut = c.sellerName
    ? `<form method="post" action="${c.signOutAction ?? '/console/logout'}">${hiddenFields({ csrf: c.csrf })}<span class="muted">${c.t.html('console.signedInAs', { seller: c.sellerName })}</span> <button type="submit" class="link">${c.t.html('console.signout')}</button></form>`
    : '';
  return (main) => `<a class="skip" href="#content">${c.t.html('console.skip')}</a>
<header class="bar">
<a class="brand" href="${c.home?.href ?? '/console'}">${c.home ? escapeHtml(c.home.label) : c.t.html('console.name')}</a>
${languageSwitch(c.t, c.back)}
<a class="tz" href="/console/time-zone?back=${escapeHtml(encodeURIComponent(c.back))}" data-time-zone="${escapeHtml(c.t.timeZone)}">${c.t.html('console.tz.current', { zone: timeZoneLabel(c.t) })}</a>
${signOut}
</header>
<main id="content">
${c.notice ?? ''}${main}
</main>`;
}

export function consoleLoginView(t: Translator, input: { csrf: string; login?: string; error?: string; next?: string }): string {
  const error = input.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(input.error)}</p>` : '';
  const describedBy = input.error ? ' aria-describedby="login-error"' : '';
  return `<h1>${t.html('console.login.title')}</h1>
<p>${t.html('console.login.intro')}</p>
${input.next ? `<p class="notice">${t.html('console.login.return')}</p>` : ''}
${error}
<form method="post" action="/console/login">
${hiddenFields({ csrf: input.csrf, ...(input.next ? { next: input.next } : {}) })}
<label for="login">${t.html('login.login')}</label>
<input type="text" id="login" name="login" autocomplete="username" required autofocus value="${escapeHtml(input.login ?? '')}"${describedBy}>
<label for="password">${t.html('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${describedBy}>
<div class="actions"><button type="submit">${t.html('login.submit')}</button></div>
</form>`;
}

export function storesView(t: Translator, stores: Array<{ id: string; name: string }>): string {
  const items = stores
    .map((s) => `<li><a href="/console/stores/${encodeURIComponent(s.id)}/webhooks">${escapeHtml(s.name)}</a></li>`)
    .join('\n');
  return `<h1>${t.html('console.stores.title')}</h1>
${stores.length > 0 ? `<ul>${items}</ul>` : `<p>${t.html('console.stores.none')}</p>`}`;
}

export function notFoundView(t: Translator): string {
  return `<h1>${t.html('console.notFound.title')}</h1>
<p>${t.html('console.notFound.text')}</p>
<p><a href="/console">${t.html('console.back', { place: t.text('console.stores.title') })}</a></p>`;
}

function crumbs(items: Array<{ href?: string; label: string }>, t: Translator): string {
  const li = items
    .map((item) =>
      item.href
        ? `<li><a href="${escapeHtml(item.href)}">${escapeHtml(item.label)}</a></li>`
        : `<li aria-current="page">${escapeHtml(item.label)}</li>`,
    )
    .join('');
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.stores'))}"><ol>${li}</ol></nav>`;
}

export interface SubscriptionView {
  id: string;
  appName: string;
  topic: string;
  version: string;
  url: string;
  state: 'active' | 'disabled';
  failureStreak: number;
  /** When the previous v1 secret stops signing, if it still does. */
  graceUntil: string | null;
}

/** mm:ss left until `until` (the console module counts it down each second). */
export function remaining(until: string, now: Date): string {
  const seconds = Math.max(0, Math.round((Date.parse(until) - now.getTime()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function countdown(until: string, now: Date): string {
  return `<time datetime="${escapeHtml(until)}" data-countdown="${escapeHtml(until)}" data-now="${now.toISOString()}">${remaining(until, now)}</time>`;
}

export function postButton(
  action: string,
  csrf: string,
  label: string,
  extra: Record<string, string> = {},
  secondary = true,
): string {
  return `<form method="post" action="${escapeHtml(action)}" class="cell-form">${hiddenFields({ csrf, ...extra })}<button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button></form>`;
}

export interface DeliveryView {
  id: string;
  topic: string;
  status: 'pending' | 'succeeded' | 'dead';
  attempts: number;
  lastStatusCode: number | null;
  createdAt: string;
  nextAttemptAt: string | null;
}

export function webhooksView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    /** The store's section navigation (ConsoleKit.storeNav). */
    nav: string;
    subscriptions: SubscriptionView[];
    deliveries: DeliveryView[];
    status: string | null;
    csrf: string;
    now: Date;
    /** How many failed deliveries the last "resend all failed" sent again, if that is where the seller came from. */
    resentFailed: number | null;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/webhooks`;
  const dayAgo = new Date(input.now.getTime() - 24 * 3600 * 1000).toISOString().slice(0, 16);
  const subs = input.subscriptions
    .map((s) => {
      const action = `${base}/subscriptions/${encodeURIComponent(s.id)}`;
      const secret =
        s.version !== 'v1'
          ? t.html('webhooks.noSecret')
          : s.graceUntil && Date.parse(s.graceUntil) > input.now.getTime()
            ? t.html('webhooks.grace', { remaining: { html: countdown(s.graceUntil, input.now) } })
            : t.html('webhooks.current');
      const actions = [
        s.state === 'active'
          ? postButton(`${action}/state`, input.csrf, `${t.text('webhooks.disable')}`, { state: 'disabled' })
          : postButton(`${action}/state`, input.csrf, `${t.text('webhooks.enable')}`, { state: 'active' }),
        s.version === 'v1' ? postButton(`${action}/rotate`, input.csrf, t.text('webhooks.rotate')) : '',
      ].join('');
      return `<tr><td>${escapeHtml(s.appName)}</td><td>${escapeHtml(s.topic)}</td><td>${escapeHtml(s.version)}</td><td><code>${escapeHtml(s.url)}</code></td><td><span class="pill${s.state === 'disabled' ? ' bad' : ''}">${t.html(`webhooks.state.${s.state}`)}</span></td><td class="num">${t.number(s.failureStreak)}</td><td>${secret}</td><td>${actions}</td></tr>`;
    })
    .join('\n');
  const options = ['', 'pending', 'succeeded', 'dead']
    .map((value) => {
      const label = value ? t.html(`webhooks.status.${value as 'pending'}`) : t.html('webhooks.filter.all');
      return `<option value="${value}"${(input.status ?? '') === value ? ' selected' : ''}>${label}</option>`;
    })
    .join('');
  return `${crumbs([{ href: '/console', label: t.text('console.stores.title') }, { label: input.store.name }], t)}
${input.nav}
<h1>${t.html('webhooks.title', { store: input.store.name })}</h1>
<h2 id="subs">${t.html('webhooks.subscriptions')}</h2>
${
  input.subscriptions.length === 0
    ? `<p>${t.html('webhooks.noSubscriptions')}</p>`
    : `<div class="table-wrap"><table aria-labelledby="subs"><thead><tr><th scope="col">${t.html('webhooks.col.app')}</th><th scope="col">${t.html('webhooks.col.topic')}</th><th scope="col">${t.html('webhooks.col.version')}</th><th scope="col">${t.html('webhooks.col.url')}</th><th scope="col">${t.html('webhooks.col.state')}</th><th scope="col">${t.html('webhooks.col.streak')}</th><th scope="col">${t.html('webhooks.col.secret')}</th><th scope="col">${t.html('webhooks.col.actions')}</th></tr></thead><tbody>${subs}</tbody></table></div>`
}
<h2 id="deliveries">${t.html('webhooks.deliveries')}</h2>
${input.resentFailed === null ? '' : `<p class="notice" role="status">${t.html('webhooks.resentFailed', { count: input.resentFailed })}</p>`}
<form method="post" action="${base}/deliveries/resend-failed" class="inline">
${hiddenFields({ csrf: input.csrf })}
<label for="since">${t.html('webhooks.resendFailed.since')}</label>
<input type="datetime-local" id="since" name="since" required value="${dayAgo}">
<button type="submit" class="secondary">${t.html('webhooks.resendFailed.submit')}</button>
</form>
<form method="get" action="${base}" class="inline">
<label for="status">${t.html('webhooks.filter.status')}</label>
<select id="status" name="status">${options}</select>
<button type="submit" class="secondary">${t.html('webhooks.filter.apply')}</button>
</form>
<section id="delivery-list" aria-live="polite" data-live="${base}/deliveries/live${input.status ? `?status=${input.status}` : ''}">
${deliveriesRegion(t, input.store.id, input.deliveries)}
</section>`;
}

/** The deliveries table, also sent whole over server-sent events when a delivery is added or changes. */
export function deliveriesRegion(t: Translator, storeId: string, deliveries: DeliveryView[]): string {
  const base = `/console/stores/${encodeURIComponent(storeId)}/webhooks`;
  const rows = deliveries
    .map(
      (d) =>
        `<tr><td><a href="${base}/deliveries/${encodeURIComponent(d.id)}" aria-label="${escapeHtml(t.text('webhooks.open', { id: d.id }))}"><code>${escapeHtml(d.id.slice(0, 8))}</code></a></td><td>${escapeHtml(t.dateTime(d.createdAt))}</td><td>${escapeHtml(d.topic)}</td><td><span class="pill${d.status === 'dead' ? ' bad' : ''}">${t.html(`webhooks.status.${d.status}`)}</span></td><td class="num">${t.number(d.attempts)}</td><td class="num">${d.lastStatusCode ?? '—'}</td></tr>`,
    )
    .join('\n');
  return deliveries.length === 0
    ? `<p>${t.html('webhooks.noDeliveries')}</p>`
    : `<div class="table-wrap"><table aria-labelledby="deliveries"><thead><tr><th scope="col">ID</th><th scope="col">${t.html('webhooks.col.created')}</th><th scope="col">${t.html('webhooks.col.topic')}</th><th scope="col">${t.html('webhooks.col.status')}</th><th scope="col">${t.html('webhooks.col.attempts')}</th><th scope="col">${t.html('webhooks.col.lastStatus')}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

export interface AttemptView {
  attempt: number;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  request_headers: Record<string, string> | null;
  started_at: string;
}

/** A header list as `name: value` lines (the receiver saw exactly these). */
function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${escapeHtml(name)}: ${escapeHtml(value)}`)
    .join('\n');
}

/** The attempts region, also sent whole over server-sent events when it changes. */
export function attemptsRegion(t: Translator, attempts: AttemptView[], nextAttemptAt: string | null): string {
  if (attempts.length === 0) return `<p>${t.html('delivery.noAttempts')}</p>`;
  const rows = attempts
    .map(
      (a) =>
        `<tr><td class="num">${a.attempt}</td><td>${escapeHtml(t.dateTime(a.started_at))}</td><td><span class="pill${a.outcome === 'failed' ? ' bad' : ''}">${t.html(`delivery.outcome.${a.outcome}`)}</span></td><td class="num">${a.status_code ?? '—'}</td><td class="num">${t.html('delivery.latency', { ms: a.duration_ms })}</td><td>${escapeHtml(a.error ?? '')}</td></tr>`,
    )
    .join('\n');
  const bodies = attempts
    .map(
      (
        a,
        i,
      ) => `<details class="attempt"${i === attempts.length - 1 ? ' open' : ''}><summary>${t.html('delivery.attemptDetail', { attempt: a.attempt })}</summary>
<h3 id="req-${i}">${t.html('delivery.requestHeaders', { attempt: a.attempt })}</h3>
<pre aria-labelledby="req-${i}" tabindex="0">${a.request_headers ? headerLines(a.request_headers) : t.html('delivery.notRecorded')}</pre>
<h3 id="body-${i}">${t.html('delivery.responseBody', { attempt: a.attempt })}</h3>
<pre aria-labelledby="body-${i}" tabindex="0">${a.response_body ? escapeHtml(a.response_body) : t.html('delivery.emptyBody')}</pre>
</details>`,
    )
    .join('\n');
  const next = nextAttemptAt ? `<p>${t.html('delivery.nextAttempt', { when: t.dateTime(nextAttemptAt) })}</p>` : '';
  return `<div class="table-wrap"><table><caption>${t.html('delivery.attempts')}</caption><thead><tr><th scope="col">${t.html('delivery.col.attempt')}</th><th scope="col">${t.html('delivery.col.started')}</th><th scope="col">${t.html('delivery.col.outcome')}</th><th scope="col">${t.html('delivery.col.status')}</th><th scope="col">${t.html('delivery.col.latency')}</th><th scope="col">${t.html('delivery.col.error')}</th></tr></thead><tbody>${rows}</tbody></table></div>
${next}
${bodies}`;
}

export function deliveryView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    delivery: DeliveryView;
    attempts: AttemptView[];
    /** The exact body sent with every attempt (the outbox event's). */
    requestBody: string | null;
    csrf: string;
    resent: boolean;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/webhooks`;
  const d = input.delivery;
  return `${crumbs(
    [
      { href: '/console', label: t.text('console.stores.title') },
      { href: base, label: t.text('webhooks.title', { store: input.store.name }) },
      { label: d.id.slice(0, 8) },
    ],
    t,
  )}
<h1>${t.html('delivery.title', { id: d.id })}</h1>
<p>${t.html('delivery.summary', { topic: d.topic, status: t.text(`webhooks.status.${d.status}`), attempts: d.attempts })}</p>
${input.resent ? `<p class="notice" role="status">${t.html('delivery.resent')}</p>` : ''}
<form method="post" action="${base}/deliveries/${encodeURIComponent(d.id)}/resend">
${hiddenFields({ csrf: input.csrf })}
<button type="submit">${t.html('delivery.resend')}</button>
</form>
<h2 id="request-body">${t.html('delivery.requestBody')}</h2>
<pre aria-labelledby="request-body" tabindex="0">${input.requestBody === null ? t.html('delivery.notRecorded') : escapeHtml(prettyJson(input.requestBody))}</pre>
<h2>${t.html('delivery.attempts')}</h2>
<p class="muted">${t.html('delivery.live')}</p>
<section id="attempts" aria-live="polite" data-live="${base}/deliveries/${encodeURIComponent(d.id)}/live">
${attemptsRegion(t, input.attempts, d.nextAttemptAt)}
</section>`;
}

/** The body indented for reading; the bytes sent are the compact original (the signature covers those). */
function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function rotatedView(
  t: Translator,
  input: { store: { id: string; name: string }; secret: string; graceUntil: string | null; now: Date },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/webhooks`;
  const grace = input.graceUntil
    ? `<p>${t.html('rotated.text', { until: t.dateTime(input.graceUntil), remaining: { html: countdown(input.graceUntil, input.now) } })}</p>`
    : '';
  return `<h1>${t.html('rotated.title')}</h1>
${grace}
<label for="new-secret">${t.html('rotated.label')}</label>
<input type="text" id="new-secret" readonly value="${escapeHtml(input.secret)}">
<p><a href="${base}">${t.html('console.back', { place: t.text('webhooks.title', { store: input.store.name }) })}</a></p>`;
}

/** Breadcrumbs from the stores list to a store's section. */
export function storeCrumbs(t: Translator, store: { name: string }): string {
  return crumbs([{ href: '/console', label: t.text('console.stores.title') }, { label: store.name }], t);
}

export function appsView(
  t: Translator,
  input: {
    store: { id: string; name: string };
    /** The store's section navigation (ConsoleKit.storeNav). */
    nav: string;
    apps: Array<{ clientId: string; name: string; scopes: string[]; grantedAt: string; lastTokenAt: string | null }>;
    csrf: string;
    disconnected: string | null;
  },
): string {
  const base = `/console/stores/${encodeURIComponent(input.store.id)}/apps`;
  const rows = input.apps.map((app) => [
    escapeHtml(app.name),
    `<ul>${app.scopes.map((s) => `<li>${t.html(scopeKey(s as Scope))} <code>${escapeHtml(s)}</code></li>`).join('')}</ul>`,
    consoleTimeHtml(t, app.grantedAt),
    app.lastTokenAt ? consoleTimeHtml(t, app.lastTokenAt) : t.html('apps.never'),
    // Disconnecting revokes the app's tokens: asked first (D69).
    confirmForm(t, {
      action: `${base}/${encodeURIComponent(app.clientId)}/disconnect`,
      csrf: input.csrf,
      label: t.text('apps.disconnect', { app: app.name }),
      confirm: disconnectConfirmation(t, app.name, input.store.name),
    }),
  ]);
  return `${crumbs([{ href: '/console', label: t.text('console.stores.title') }, { label: input.store.name }], t)}
${input.nav}
<h1>${t.html('apps.title', { store: input.store.name })}</h1>
${input.disconnected ? `<p class="notice" role="status">${t.html('apps.disconnected', { app: input.disconnected })}</p>` : ''}
${
  input.apps.length === 0
    ? `<p>${t.html('apps.none')}</p>`
    : dataTable({
        caption: t.text('console.nav.apps'),
        label: t.text('console.nav.apps'),
        columns: [
          { label: t.text('apps.col.app') },
          { label: t.text('apps.col.scopes') },
          { label: t.text('apps.col.granted') },
          { label: t.text('apps.col.lastToken') },
          { label: t.text('webhooks.col.actions') },
        ],
        rows,
      })
}`;
}

/** What "Disconnect" asks, in the dialog and on the no-JavaScript page alike. */
export function disconnectConfirmation(t: Translator, app: string, store: string): Confirmation {
  return {
    question: t.text('confirm.disconnect.question', { app, store }),
    effect: t.text('confirm.disconnect.effect', { app }),
    yes: t.text('confirm.disconnect.yes'),
  };
}
