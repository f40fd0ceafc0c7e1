import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findClientById, verifyClientSecret } from '../accounts/index.js';
import { escapeHtml, hiddenFields, sendPage } from '../http/html-page.js';
import { SECRET_PAGE_ROUTE, secretAnswer } from '../http/secret-page.js';
import { requestTranslator } from '../i18n/i18n.js';
import { authorizationCodeIssue, csrfToken, csrfTokenValid, exchangeAuthorizationCode, OAuthError } from '../identity/index.js';

const DEMO_CALLBACK_PATH = '/demo/callback';
const RESULT_COOKIE = 'feira_demo_tokens';

const hide = { schema: { hide: true } };

// The demo client's terms-of-use and privacy-policy links (shown on the consent
// screen, Authentication rule 2) lead somewhere real in the sandbox.
const DEMO_DOCUMENTS = {
  '/demo/terms-of-use': ['demo.terms.title', 'demo.terms.text'],
  '/demo/privacy-policy': ['demo.privacy.title', 'demo.privacy.text'],
} as const;

/**
 * Sandbox only: the redirect target of the demo client. It shows
 * the code and exchanges it. The server keeps only a hash of the demo client's
 * secret, so it cannot exchange on its own: the page asks for the secret (the
 * one `feira start` printed) and calls the same exchange as POST /oauth/token.
 * The token set is handed to the result page through a sealed, HttpOnly,
 * one-minute cookie, so the form is answered with a 303 and a reload never
 * re-submits the code (which would be reuse and revoke the tokens, I6).
 */
export async function demoCallback(app: FastifyInstance): Promise<void> {
  // The URL carries a live code: keep it out of the request log (info level).
  app.get(DEMO_CALLBACK_PATH, { ...hide, logLevel: 'warn' }, callbackPage);
  app.post(DEMO_CALLBACK_PATH, hide, exchangeCode);
  // The token set is a secret on a page: never compressed, never stored (D98).
  app.get('/demo/tokens', { ...hide, ...SECRET_PAGE_ROUTE }, tokensPage);
  for (const [path, [title, text]] of Object.entries(DEMO_DOCUMENTS)) app.get(path, hide, demoDocument(path, title, text));
}

/** The exchange form for a code, with why the last try failed, if it did. */
async function renderForm(request: FastifyRequest, reply: FastifyReply, code: string, error?: string) {
  const issued = await authorizationCodeIssue(request.server.platform.database.db, code);
  const t = requestTranslator(request);
  return sendPage(reply, {
    status: error ? 400 : 200,
    t,
    title: t.text('demo.callback.title'),
    body: `<h1>${t.html('demo.callback.heading')}</h1>
<p>${t.html('demo.callback.came', { path: { html: `<code>${escapeHtml(DEMO_CALLBACK_PATH)}</code>` } })}</p>
<pre id="code">${escapeHtml(code)}</pre>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<p>${t.html('demo.callback.explain')}</p>
<form method="post" action="${DEMO_CALLBACK_PATH}">
${hiddenFields({ code, csrf: csrfToken(request, reply) })}
<label for="client_id">${t.html('demo.callback.clientId')}</label>
<input type="text" id="client_id" name="client_id" required value="${escapeHtml(issued?.clientId ?? '')}">
<label for="client_secret">${t.html('demo.callback.secret')}</label>
<input type="password" id="client_secret" name="client_secret" required autocomplete="off" autofocus>
<div class="actions"><button type="submit">${t.html('demo.callback.exchange')}</button></div>
</form>`,
  });
}

/** A 400 page: the request carried no usable code. */
function missingCode(request: FastifyRequest, reply: FastifyReply) {
  const t = requestTranslator(request);
  return sendPage(reply, {
    status: 400,
    t,
    title: t.text('demo.callback.title'),
    body: `<h1>${t.html('demo.callback.missing')}</h1>`,
  });
}

/** GET of the callback: the authorization server's error, or the code with the exchange form. */
async function callbackPage(request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Record<string, unknown>;
  if (typeof query.error === 'string') {
    const t = requestTranslator(request);
    return sendPage(reply, {
      t,
      title: t.text('demo.callback.title'),
      body: `<h1>${t.html('demo.callback.noCode', { error: { html: `<code>${escapeHtml(query.error)}</code>` } })}</h1><p lang="en">${escapeHtml(String(query.error_description ?? ''))}</p>`,
    });
  }
  if (typeof query.code !== 'string' || query.code.length === 0 || query.code.length > 256) return missingCode(request, reply);
  return renderForm(request, reply, query.code);
}

/** POST of the callback: the demo client's secret checked, the code exchanged, the token set handed on by a sealed cookie. */
async function exchangeCode(request: FastifyRequest, reply: FastifyReply) {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const code = typeof body.code === 'string' && body.code.length <= 256 ? body.code : '';
  const t = requestTranslator(request);
  if (!code) return missingCode(request, reply);
  if (!csrfTokenValid(request, body.csrf)) return renderForm(request, reply, code, t.text('demo.callback.expired'));
  const clientId = typeof body.client_id === 'string' ? body.client_id : '';
  const secret = typeof body.client_secret === 'string' ? body.client_secret : '';
  const platform = request.server.identity;
  const client = clientId ? await findClientById(platform.database.db, clientId) : undefined;
  if (!client || !verifyClientSecret(client, secret)) return renderForm(request, reply, code, t.text('demo.callback.wrong'));
  // Exchange only codes that were sent to a demo callback, with the redirect_uri they were issued for
  // (the demo seed may register it under base_url or auth_url; both are this process in the sandbox).
  const issuedFor = await authorizationCodeIssue(platform.database.db, code);
  if (!issuedFor || new URL(issuedFor.redirectUri).pathname !== DEMO_CALLBACK_PATH) {
    return renderForm(request, reply, code, 'This code was not issued for the demo callback.');
  }
  try {
    const tokens = await exchangeAuthorizationCode(platform, client.id, {
      code,
      redirectUri: issuedFor.redirectUri,
      codeVerifier: undefined,
    });
    reply.setCookie(RESULT_COOKIE, platform.box.seal(JSON.stringify(tokens)), {
      path: '/demo',
      httpOnly: true,
      sameSite: 'lax',
      secure: platform.config.authUrl.startsWith('https:'),
      maxAge: 60,
    });
    return reply.code(303).header('location', '/demo/tokens').header('cache-control', 'no-store').send();
  } catch (error) {
    if (error instanceof OAuthError) return renderForm(request, reply, code, `${error.code}: ${error.message}`);
    throw error;
  }
}

/** GET /demo/tokens: the token set the exchange sealed in its cookie, shown once (the cookie is cleared). */
async function tokensPage(request: FastifyRequest, reply: FastifyReply) {
  const sealed = request.cookies[RESULT_COOKIE];
  let tokens: string | null = null;
  try {
    tokens = sealed ? JSON.stringify(JSON.parse(request.server.platform.box.open(sealed)), null, 2) : null;
  } catch {
    tokens = null;
  }
  reply.clearCookie(RESULT_COOKIE, { path: '/demo' });
  const t = requestTranslator(request);
  if (!tokens)
    return sendPage(reply, {
      status: 404,
      t,
      title: t.text('demo.tokens.title'),
      body: `<h1>${t.html('demo.tokens.none')}</h1>`,
    });
  return sendPage(secretAnswer(reply), {
    t,
    title: t.text('demo.tokens.title'),
    body: `<h1>${t.html('demo.tokens.heading')}</h1>
<p>${t.html('demo.tokens.intro', { call: { html: '<code>POST /oauth/token</code>' } })}</p>
<pre id="token-set">${escapeHtml(tokens)}</pre>
<p class="muted">${t.html('demo.tokens.use', { header: { html: '<code>Authorization: Bearer &lt;access_token&gt;</code>' } })}</p>`,
  });
}

type DemoDocument = (typeof DEMO_DOCUMENTS)[keyof typeof DEMO_DOCUMENTS];

/** One of the demo client's documents: a title and a paragraph. */
function demoDocument(path: string, title: DemoDocument[0], text: DemoDocument[1]) {
  return async function demoDocument(request: FastifyRequest, reply: FastifyReply) {
    const t = requestTranslator(request);
    return sendPage(reply, {
      t,
      switchBack: path,
      title: t.text(title),
      body: `<h1>${t.html(title)}</h1>\n<p>${t.html(text)}</p>`,
    });
  };
}
