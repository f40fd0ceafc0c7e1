import type { Scope } from '@feira/contract';
import { escapeHtml, hiddenFields, safeLink } from '../http/html-page.js';
import type { MessageKey, Translator } from '../i18n/i18n.js';

/**
 * The HTML bodies of the identity pages, in the request's language (every
 * string from the message catalogues). Every input has a label; DOM order is focus order.
 */

export function loginView(
  t: Translator,
  input: {
    clientName: string;
    params: Record<string, string>;
    csrf: string;
    login?: string;
    error?: string;
  },
): string {
  const error = input.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(input.error)}</p>` : '';
  const describedBy = input.error ? ' aria-describedby="login-error"' : '';
  return `<h1>${t.html('login.heading')}</h1>
<p>${t.html('login.wants', { client: input.clientName })}</p>
${error}
<form method="post" action="/login">
${hiddenFields({ ...input.params, csrf: input.csrf })}
<label for="login">${t.html('login.login')}</label>
<input type="text" id="login" name="login" autocomplete="username" required autofocus value="${escapeHtml(input.login ?? '')}"${describedBy}>
<label for="password">${t.html('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${describedBy}>
<div class="actions"><button type="submit">${t.html('login.submit')}</button></div>
</form>
<p class="muted">${t.html('login.note', { client: input.clientName })}</p>`;
}

function signOutForm(t: Translator, params: Record<string, string>, csrf: string, sellerName: string): string {
  return `<form method="post" action="/logout" class="muted">
${hiddenFields({ ...params, csrf })}
${t.html('signout.as', { seller: sellerName })} <button type="submit" class="link">${t.html('signout.button')}</button>
</form>`;
}

export function tenantChoiceView(
  t: Translator,
  input: {
    clientName: string;
    sellerName: string;
    tenants: Array<{ id: string; name: string }>;
    params: Record<string, string>;
    csrf: string;
    error?: string;
  },
): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  const boxes = input.tenants
    .map(
      (s, i) =>
        `<label for="tenant-${i}"><input type="checkbox" id="tenant-${i}" name="tenant" value="${escapeHtml(s.id)}"${i === 0 ? ' autofocus' : ''}${input.tenants.length === 1 ? ' checked' : ''}> ${escapeHtml(s.name)}</label>`,
    )
    .join('\n');
  return `<h1>${t.html('tenants.heading')}</h1>
<p>${t.html('tenants.which', { client: input.clientName })}</p>
${error}
<form method="post" action="/login/tenants">
${hiddenFields({ ...input.params, csrf: input.csrf })}
<fieldset>
<legend>${t.html('tenants.legend')}</legend>
${boxes}
</fieldset>
<div class="actions"><button type="submit">${t.html('tenants.submit')}</button></div>
</form>
${signOutForm(t, input.params, input.csrf, input.sellerName)}`;
}

/** The catalogue key describing a scope (i18n.test.ts checks every scope of the contract has one). */
export function scopeKey(scope: Scope): MessageKey {
  return `scope.${scope}` as MessageKey;
}

export function consentView(
  t: Translator,
  input: {
    clientName: string;
    sellerName: string;
    scopes: Scope[];
    tenantNames: string[];
    termsOfUseUrl: string | null;
    privacyPolicyUrl: string | null;
    params: Record<string, string>;
    tenantIds: string[];
    csrf: string;
  },
): string {
  const where =
    input.tenantNames.length === 0
      ? t.html('consent.noStore')
      : new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(
          input.tenantNames.map((n) => `<strong>${escapeHtml(n)}</strong>`),
        );
  const scopes = input.scopes.map((s) => `<li>${t.html(scopeKey(s))} <code>${escapeHtml(s)}</code></li>`).join('\n');
  const terms = safeLink(input.termsOfUseUrl);
  const privacy = safeLink(input.privacyPolicyUrl);
  const link = (href: string, key: MessageKey) =>
    `<a href="${escapeHtml(href)}" rel="noopener noreferrer" target="_blank">${t.html(key)}</a>`;
  const client = input.clientName;
  const policy =
    terms && privacy
      ? t.html('consent.readBoth', {
          client,
          terms: { html: link(terms, 'consent.terms') },
          privacy: { html: link(privacy, 'consent.privacy') },
        })
      : terms || privacy
        ? t.html('consent.readOne', {
            client,
            link: { html: terms ? link(terms, 'consent.terms') : link(privacy as string, 'consent.privacy') },
          })
        : t.html('consent.noPolicy', { client });
  return `<h1>${t.html('consent.heading', { client })}</h1>
<p>${t.html('consent.for', { client, where: { html: where } })}</p>
<ul>
${scopes}
</ul>
<p class="muted">${policy}</p>
<form method="post" action="/consent">
${hiddenFields({ ...input.params, tenant: input.tenantIds, csrf: input.csrf })}
<div class="actions">
<button type="submit" name="decision" value="approve" autofocus>${t.html('consent.allow')}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t.html('consent.deny')}</button>
</div>
</form>
${signOutForm(t, input.params, input.csrf, input.sellerName)}`;
}

export function errorView(t: Translator, message: string): string {
  return `<h1>${t.html('error.heading')}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p class="muted">${t.html('error.advice')}</p>`;
}
