import type { FastifyInstance } from 'fastify';
import { CATALOGUES, LOCALES } from '../i18n/i18n.js';

const BUTTON_KEYS = [
  'button.label',
  'button.errorPrefix',
  'button.error.clientId',
  'button.error.redirectUri',
  'button.error.state',
] as const;

/** The button's strings in every language, from the same catalogues as the pages. */
function buttonMessages(): Record<string, Record<string, string>> {
  return Object.fromEntries(
    LOCALES.map((locale) => [locale, Object.fromEntries(BUTTON_KEYS.map((key) => [key, CATALOGUES[locale][key]]))]),
  );
}

/**
 * The consent button (spec "Consent by button", spec-notes I12): an ES
 * module that turns every `.feira-consent-content` element into a button that
 * starts the flow at {auth_url}/login with the element's `client-id`,
 * `redirect-uri`, `state` (alphanumeric, else an inline error and no button)
 * and extra `scope` (the server merges it with the client's default scopes,
 * I10). Other attributes are ignored. Elements added later are upgraded too.
 * Styles are set through the CSSOM, which a host page's CSP does not block.
 * Its words follow the host page's language (the nearest `lang` attribute,
 * else the browser's): Portuguese for any `pt`, English otherwise.
 */
function consentScriptSource(authUrl: string): string {
  return `// Feira consent button: <div class="feira-consent-content" client-id="…" redirect-uri="…" state="…" scope="…"></div>
const AUTH_URL = ${JSON.stringify(authUrl)};
const CLASS_NAME = 'feira-consent-content';
const STATE = /^[A-Za-z0-9]+$/;
const MESSAGES = ${JSON.stringify(buttonMessages())};

/** The catalogue for this element: its nearest lang attribute, else the browser's language. */
export function messagesFor(element) {
  const holder = element.closest('[lang]');
  const lang = ((holder && holder.getAttribute('lang')) || navigator.language || 'en').toLowerCase();
  return lang === 'pt' || lang.startsWith('pt-') ? MESSAGES['pt-BR'] : MESSAGES.en;
}

function showError(element, message) {
  const error = document.createElement('span');
  error.setAttribute('role', 'alert');
  error.className = 'feira-consent-error';
  error.textContent = messagesFor(element)['button.errorPrefix'] + ' ' + message;
  error.style.color = '#a3261b';
  error.style.font = '600 14px/1.4 system-ui, sans-serif';
  element.replaceChildren(error);
  element.dataset.feiraConsent = 'error';
}

/** The /login URL this element starts (spec "Consent by redirect"), or an error message. */
export function loginUrlOf(element) {
  const clientId = (element.getAttribute('client-id') || '').trim();
  const redirectUri = (element.getAttribute('redirect-uri') || '').trim();
  const state = element.getAttribute('state');
  const scope = (element.getAttribute('scope') || '').split(/\\s+/).filter(Boolean).join(' ');
  const messages = messagesFor(element);
  if (!clientId) return { error: messages['button.error.clientId'] };
  if (!redirectUri) return { error: messages['button.error.redirectUri'] };
  if (state !== null && !STATE.test(state)) return { error: messages['button.error.state'] };
  const url = new URL(AUTH_URL + '/login');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('choose_tenants', 'true');
  if (scope) url.searchParams.set('scope', scope);
  if (state !== null) url.searchParams.set('state', state);
  return { url: url.toString() };
}

export function upgrade(element) {
  if (element.dataset.feiraConsent) return;
  const result = loginUrlOf(element);
  if (result.error) return showError(element, result.error);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'feira-consent-button';
  button.textContent = (element.textContent || '').trim() || messagesFor(element)['button.label'];
  Object.assign(button.style, {
    font: '600 16px/1.2 system-ui, sans-serif',
    padding: '10px 18px',
    borderRadius: '8px',
    border: '1px solid #0b5cad',
    background: '#0b5cad',
    color: '#fff',
    cursor: 'pointer',
  });
  button.addEventListener('click', () => window.location.assign(result.url));
  element.replaceChildren(button);
  element.dataset.feiraConsent = 'ready';
}

export function upgradeAll(root = document) {
  if (root.classList && root.classList.contains(CLASS_NAME)) upgrade(root);
  for (const element of root.querySelectorAll('.' + CLASS_NAME)) upgrade(element);
}

upgradeAll();
new MutationObserver((mutations) => {
  for (const mutation of mutations) for (const node of mutation.addedNodes) if (node.nodeType === 1) upgradeAll(node);
}).observe(document.documentElement, { childList: true, subtree: true });
`;
}

export async function consentScript(app: FastifyInstance): Promise<void> {
  const source = consentScriptSource(app.platform.config.authUrl);
  app.get('/consent.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      // Module scripts are fetched with CORS: integrators load this from their own origin.
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=300')
      .send(source),
  );
}
