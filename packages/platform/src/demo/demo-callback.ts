import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findClientById, verifyClientSecret } from '../accounts/index.js';
import { escapeHtml, hiddenFields, sendPage } from '../http/html-page.js';
import { authorizationCodeIssue, csrfToken, csrfTokenValid, exchangeAuthorizationCode, OAuthError } from '../identity/index.js';

export const DEMO_CALLBACK_PATH = '/demo/callback';
const RESULT_COOKIE = 'feira_demo_tokens';

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
  const hide = { schema: { hide: true } };

  async function renderForm(request: FastifyRequest, reply: FastifyReply, code: string, error?: string) {
    const issued = await authorizationCodeIssue(request.server.platform.database.db, code);
    return sendPage(reply, {
      status: error ? 400 : 200,
      title: 'Demo callback',
      body: `<h1>Authorization code received</h1>
<p>The browser came back to <code>${escapeHtml(DEMO_CALLBACK_PATH)}</code> with this code (valid 10 minutes, single use):</p>
<pre id="code">${escapeHtml(code)}</pre>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<p>A real integration exchanges it server-to-server. Here, enter the demo client's secret to do it:</p>
<form method="post" action="${DEMO_CALLBACK_PATH}">
${hiddenFields({ code, csrf: csrfToken(request, reply) })}
<label for="client_id">Client ID</label>
<input type="text" id="client_id" name="client_id" required value="${escapeHtml(issued?.clientId ?? '')}">
<label for="client_secret">Client secret</label>
<input type="password" id="client_secret" name="client_secret" required autocomplete="off" autofocus>
<div class="actions"><button type="submit">Exchange the code</button></div>
</form>`,
    });
  }

  // The URL carries a live code: keep it out of the request log (info level).
  app.get(DEMO_CALLBACK_PATH, { ...hide, logLevel: 'warn' }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (typeof query.error === 'string') {
      return sendPage(reply, {
        title: 'Demo callback',
        body: `<h1>No code: ${escapeHtml(query.error)}</h1><p>${escapeHtml(String(query.error_description ?? ''))}</p>`,
      });
    }
    if (typeof query.code !== 'string' || query.code.length === 0 || query.code.length > 256) {
      return sendPage(reply, { status: 400, title: 'Demo callback', body: '<h1>No authorization code in this URL</h1>' });
    }
    return renderForm(request, reply, query.code);
  });

  app.post(DEMO_CALLBACK_PATH, hide, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const code = typeof body.code === 'string' && body.code.length <= 256 ? body.code : '';
    if (!code) return sendPage(reply, { status: 400, title: 'Demo callback', body: '<h1>No authorization code</h1>' });
    if (!csrfTokenValid(request, body.csrf)) return renderForm(request, reply, code, 'The form expired; submit it again.');
    const clientId = typeof body.client_id === 'string' ? body.client_id : '';
    const secret = typeof body.client_secret === 'string' ? body.client_secret : '';
    const platform = request.server.identity;
    const client = clientId ? await findClientById(platform.database.db, clientId) : undefined;
    if (!client || !verifyClientSecret(client, secret)) return renderForm(request, reply, code, 'Client ID or secret is wrong.');
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
  });

  app.get('/demo/tokens', hide, async (request, reply) => {
    const sealed = request.cookies[RESULT_COOKIE];
    let tokens: string | null = null;
    try {
      tokens = sealed ? JSON.stringify(JSON.parse(request.server.platform.box.open(sealed)), null, 2) : null;
    } catch {
      tokens = null;
    }
    reply.clearCookie(RESULT_COOKIE, { path: '/demo' });
    if (!tokens) return sendPage(reply, { status: 404, title: 'Demo tokens', body: '<h1>No token set to show</h1>' });
    return sendPage(reply, {
      title: 'Demo tokens',
      body: `<h1>Token set</h1>
<p>The response of <code>POST /oauth/token</code> (shown once):</p>
<pre id="token-set">${escapeHtml(tokens)}</pre>
<p class="muted">Call the API with <code>Authorization: Bearer &lt;access_token&gt;</code>. Refresh with the refresh_token grant (see the README).</p>`,
    });
  });

  // The demo client's terms-of-use and privacy-policy links (shown on the consent
  // screen, Authentication rule 2) lead somewhere real in the sandbox.
  const demoDocuments = {
    '/demo/terms-of-use': [
      'Feira demo app: terms of use',
      'This is the sandbox demo client. It exists so you can click through the authorization flow; it stores nothing and calls nothing on your behalf.',
    ],
    '/demo/privacy-policy': [
      'Feira demo app: privacy policy',
      'The sandbox demo client keeps no personal data. Tokens it obtains are shown to you once and then forgotten.',
    ],
  } as const;
  for (const [path, [title, text]] of Object.entries(demoDocuments)) {
    app.get(path, hide, async (_request, reply) =>
      sendPage(reply, { title, body: `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>` }),
    );
  }
}
