import { SCOPES, type Scope } from '@feira/contract';
import { escapeHtml, hiddenFields, safeLink } from './html-page.js';

/** The HTML bodies of the identity pages. Every input has a label; DOM order is focus order. */

export function loginView(input: {
  clientName: string;
  params: Record<string, string>;
  csrf: string;
  login?: string;
  error?: string;
}): string {
  const error = input.error ? `<p class="error" role="alert" id="login-error">${escapeHtml(input.error)}</p>` : '';
  const describedBy = input.error ? ' aria-describedby="login-error"' : '';
  return `<h1>Sign in to Feira</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> wants to connect to your seller account.</p>
${error}
<form method="post" action="/login">
${hiddenFields({ ...input.params, csrf: input.csrf })}
<label for="login">Login</label>
<input type="text" id="login" name="login" autocomplete="username" required autofocus value="${escapeHtml(input.login ?? '')}"${describedBy}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${describedBy}>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="muted">Use your store's credentials. Feira never shows your password to ${escapeHtml(input.clientName)}.</p>`;
}

function signOutForm(params: Record<string, string>, csrf: string, sellerName: string): string {
  return `<form method="post" action="/logout" class="muted">
${hiddenFields({ ...params, csrf })}
Signed in as ${escapeHtml(sellerName)}. <button type="submit" class="link">Not you? Sign out</button>
</form>`;
}

export function tenantChoiceView(input: {
  clientName: string;
  sellerName: string;
  tenants: Array<{ id: string; name: string }>;
  params: Record<string, string>;
  csrf: string;
  error?: string;
}): string {
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  const boxes = input.tenants
    .map(
      (t, i) =>
        `<label for="tenant-${i}"><input type="checkbox" id="tenant-${i}" name="tenant" value="${escapeHtml(t.id)}"${i === 0 ? ' autofocus' : ''}${input.tenants.length === 1 ? ' checked' : ''}> ${escapeHtml(t.name)}</label>`,
    )
    .join('\n');
  return `<h1>Choose your stores</h1>
<p>Which stores may <strong>${escapeHtml(input.clientName)}</strong> access?</p>
${error}
<form method="post" action="/login/tenants">
${hiddenFields({ ...input.params, csrf: input.csrf })}
<fieldset>
<legend>Stores</legend>
${boxes}
</fieldset>
<div class="actions"><button type="submit">Continue</button></div>
</form>
${signOutForm(input.params, input.csrf, input.sellerName)}`;
}

export function consentView(input: {
  clientName: string;
  sellerName: string;
  scopes: Scope[];
  tenantNames: string[];
  termsOfUseUrl: string | null;
  privacyPolicyUrl: string | null;
  params: Record<string, string>;
  tenantIds: string[];
  csrf: string;
}): string {
  const where =
    input.tenantNames.length === 0
      ? 'your personal seller account (no store)'
      : input.tenantNames.map((n) => `<strong>${escapeHtml(n)}</strong>`).join(', ');
  const scopes = input.scopes
    .map((s) => `<li>${escapeHtml(SCOPES[s].description)} <code>${escapeHtml(s)}</code></li>`)
    .join('\n');
  const terms = safeLink(input.termsOfUseUrl);
  const privacy = safeLink(input.privacyPolicyUrl);
  const links = [
    terms ? `<a href="${escapeHtml(terms)}" rel="noopener noreferrer" target="_blank">terms of use</a>` : '',
    privacy ? `<a href="${escapeHtml(privacy)}" rel="noopener noreferrer" target="_blank">privacy policy</a>` : '',
  ].filter(Boolean);
  const policy =
    links.length > 0
      ? `<p class="muted">Read ${escapeHtml(input.clientName)}'s ${links.join(' and ')} before you allow access.</p>`
      : `<p class="muted">${escapeHtml(input.clientName)} has not published terms of use or a privacy policy.</p>`;
  return `<h1>Allow ${escapeHtml(input.clientName)} to access your data?</h1>
<p>For ${where}, <strong>${escapeHtml(input.clientName)}</strong> will be able to:</p>
<ul>
${scopes}
</ul>
${policy}
<form method="post" action="/consent">
${hiddenFields({ ...input.params, tenant: input.tenantIds, csrf: input.csrf })}
<div class="actions">
<button type="submit" name="decision" value="approve" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>
${signOutForm(input.params, input.csrf, input.sellerName)}`;
}

export function errorView(message: string): string {
  return `<h1>This sign-in link cannot be used</h1>
<p role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the application you came from and start again. If it keeps happening, tell its developers.</p>`;
}
