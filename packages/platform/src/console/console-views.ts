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
    .map((s) => `<li><a href="/console/stores/${encodeURIComponent(s.id)}/overview">${escapeHtml(s.name)}</a></li>`)
    .join('\n');
  return `<h1>${t.html('console.stores.title')}</h1>
${stores.length > 0 ? `<ul>${items}</ul>` : `<p>${t.html('console.stores.none')}</p>`}`;
}

export function notFoundView(t: Translator): string {
  return `<h1>${t.html('console.notFound.title')}</h1>
<p>${t.html('console.notFound.text')}</p>
<p><a href="/console">${t.html('console.back', { place: t.text('console.stores.title') })}</a></p>`;
}

export function crumbs(items: Array<{ href?: string; label: string }>, t: Translator): string {
  const li = items
    .map((item) =>
      item.href
        ? `<li><a href="${escapeHtml(item.href)}">${escapeHtml(item.label)}</a></li>`
        : `<li aria-current="page">${escapeHtml(item.label)}</li>`,
    )
    .join('');
  return `<nav class="crumbs" aria-label="${escapeHtml(t.text('console.nav.stores'))}"><ol>${li}</ol></nav>`;
}

/** mm:ss left until `until` (the console module counts it down each second). */
export function remaining(until: string, now: Date): string {
  const seconds = Math.max(0, Math.round((Date.parse(until) - now.getTime()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
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
