import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findSellerById, type Seller } from '../accounts/index.js';
import { sendPage } from '../http/html-page.js';
import { requestTranslator } from '../i18n/i18n.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import {
  type AuthorizationRequest,
  authorizationParams,
  OPENID_SCOPE,
  parseAuthorizationRequest,
  type RawParams,
  redirectBack,
} from './authorization-request.js';
import { consentNeeded, recordConsent } from './consent-store.js';
import { csrfToken, csrfTokenValid, currentSession, endSession, sessionSellerId, startSession } from './login-session.js';
import { consentView, errorView, loginView, tenantChoiceView } from './page-views.js';
import { checkCredentials } from './seller-credentials.js';

const MAX_LOGIN_LENGTH = 256;
const MAX_PASSWORD_LENGTH = 1024;

function asParams(value: unknown): RawParams {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as RawParams) : {};
}

/** 303 See Other (a reload never re-posts the form), with the same no-store / no-referrer headers as the pages. */
function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply
    .code(303)
    .header('location', location)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();
}

function withQuery(path: string, params: Record<string, string | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const v of [value].flat()) search.append(name, v);
  return `${path}?${search.toString()}`;
}

/** Validates the request; on failure sends the error page (bad client/redirect_uri) or redirects with `error` (RFC 6749 §4.1.2.1). */
async function authorizationRequestOrReply(
  request: FastifyRequest,
  reply: FastifyReply,
  params: RawParams,
): Promise<AuthorizationRequest | null> {
  const result = await parseAuthorizationRequest(request.server.platform.database.db, params);
  if (result.kind === 'ok') return result.request;
  if (result.kind === 'fatal') {
    const t = requestTranslator(request);
    sendPage(reply, { status: 400, title: t.text('error.title'), t, body: errorView(t, t.text(result.messageKey)) });
  } else {
    seeOther(
      reply,
      redirectBack(request.server.platform.config.authUrl, result.redirectUri, {
        error: result.error,
        error_description: result.description,
        state: result.state,
      }),
    );
  }
  return null;
}

async function loggedInSeller(request: FastifyRequest): Promise<Seller | null> {
  const sellerId = await sessionSellerId(request);
  if (!sellerId) return null;
  return (await findSellerById(request.server.platform.database.db, sellerId)) ?? null;
}

function renderLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  extra: { status?: number; error?: string; login?: string } = {},
): FastifyReply {
  const t = requestTranslator(request);
  return sendPage(reply, {
    status: extra.status ?? 200,
    title: t.text('login.title'),
    t,
    switchBack: withQuery('/login', authorizationParams(authz)),
    redirectUri: authz.redirectUri,
    body: loginView(t, {
      clientName: authz.client.name,
      params: authorizationParams(authz),
      csrf: csrfToken(request, reply),
      ...(extra.error ? { error: extra.error } : {}),
      ...(extra.login ? { login: extra.login } : {}),
    }),
  });
}

function renderTenantChoice(
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  seller: Seller,
  error?: string,
): FastifyReply {
  const t = requestTranslator(request);
  return sendPage(reply, {
    status: error ? 422 : 200,
    title: t.text('tenants.title'),
    t,
    switchBack: withQuery('/login', authorizationParams(authz)),
    redirectUri: authz.redirectUri,
    body: tenantChoiceView(t, {
      clientName: authz.client.name,
      sellerName: seller.name,
      tenants: seller.tenants,
      params: authorizationParams(authz),
      csrf: csrfToken(request, reply),
      ...(error ? { error } : {}),
    }),
  });
}

/** The tenants named in the request, if they are all the seller's own and fit choose_tenants (spec-notes I9). */
function chosenTenants(authz: AuthorizationRequest, seller: Seller, raw: unknown): string[] | null {
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (!values.every((v): v is string => typeof v === 'string')) return null;
  const unique = [...new Set(values)];
  if (!authz.chooseTenants) return unique.length === 0 ? [] : null;
  const own = new Set(seller.tenants.map((t) => t.id));
  if (unique.length === 0 || !unique.every((id) => own.has(id))) return null;
  // Keep the seller's order, so the same choice always gives the same token.
  return seller.tenants.map((t) => t.id).filter((id) => unique.includes(id));
}

async function redirectWithCode(
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  seller: Seller,
  tenants: string[],
): Promise<FastifyReply> {
  // spec-notes I14: `openid` leads the granted scope; the ID token says when the seller signed in.
  const session = authz.openid ? await currentSession(request) : null;
  const code = await issueAuthorizationCode(request.server.identity, {
    clientId: authz.client.id,
    sellerId: seller.id,
    redirectUri: authz.redirectUri,
    scope: [...(authz.openid ? [OPENID_SCOPE] : []), ...authz.scopes].join(' '),
    tenants,
    codeChallenge: authz.codeChallenge,
    nonce: authz.nonce,
    authTime: session?.startedAt,
  });
  return seeOther(reply, redirectBack(request.server.platform.config.authUrl, authz.redirectUri, { code, state: authz.state }));
}

const hide = { schema: { hide: true } };

/**
 * The pages of the spec's "Consent by redirect":
 * GET /login → login form, or (with a session) the store choice, or on to /consent;
 * GET /consent → the consent screen when some scope is new (I10), else straight back with a code;
 * POST /login, /login/tenants, /consent, /logout → CSRF-checked, answered with 303.
 * The authorization request travels in the query or hidden fields and is validated again at every step.
 */
export async function loginPages(app: FastifyInstance): Promise<void> {
  app.get('/login', hide, loginPage);
  app.post('/login', hide, signIn);
  app.post('/logout', hide, signOut);
  app.post('/login/tenants', hide, chooseStores);
  app.get('/consent', hide, consentPage);
  app.post('/consent', hide, answerConsent);
}

/** GET /login: the login form, or with a session the store choice, or on to /consent. */
async function loginPage(request: FastifyRequest, reply: FastifyReply) {
  const authz = await authorizationRequestOrReply(request, reply, asParams(request.query));
  if (!authz) return reply;
  const seller = await loggedInSeller(request);
  if (!seller) return renderLogin(request, reply, authz);
  if (authz.chooseTenants) {
    if (seller.tenants.length === 0) {
      return seeOther(
        reply,
        redirectBack(request.server.platform.config.authUrl, authz.redirectUri, {
          error: 'access_denied',
          error_description: 'The seller has no store to grant',
          state: authz.state,
        }),
      );
    }
    return renderTenantChoice(request, reply, authz, seller);
  }
  return seeOther(reply, withQuery('/consent', authorizationParams(authz)));
}

/** POST /login: checks the credentials (throttled) and starts the session, or shows the form again with why not. */
async function signIn(request: FastifyRequest, reply: FastifyReply) {
  const body = asParams(request.body);
  const authz = await authorizationRequestOrReply(request, reply, body);
  if (!authz) return reply;
  if (!csrfTokenValid(request, body.csrf)) {
    return renderLogin(request, reply, authz, { status: 403, error: requestTranslator(request).text('login.error.expired') });
  }
  const login = typeof body.login === 'string' ? body.login.trim() : '';
  const password = typeof body.password === 'string' ? body.password : '';
  if (!login || !password || login.length > MAX_LOGIN_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    return renderLogin(request, reply, authz, {
      status: 422,
      error: requestTranslator(request).text('login.error.missing'),
      login: login.slice(0, 256),
    });
  }
  const checked = await checkCredentials(request.server.identity, { login, password, address: request.ip });
  if (checked.kind !== 'ok') {
    const t = requestTranslator(request);
    if (checked.kind === 'wrong')
      return renderLogin(request, reply, authz, { status: 401, login, error: t.text('login.error.incorrect') });
    reply.header('retry-after', String(checked.retryAfterSeconds));
    const error =
      checked.kind === 'busy'
        ? t.text('login.error.busy')
        : t.text('login.error.throttled', { seconds: checked.retryAfterSeconds });
    return renderLogin(request, reply, authz, { status: 429, login, error });
  }
  const seller = checked.seller;
  await startSession(request, reply, seller.id);
  return seeOther(reply, withQuery('/login', authorizationParams(authz)));
}

/** POST /logout: ends the session (with a valid CSRF token) and goes back to the login form. */
async function signOut(request: FastifyRequest, reply: FastifyReply) {
  const body = asParams(request.body);
  const authz = await authorizationRequestOrReply(request, reply, body);
  if (!authz) return reply;
  if (csrfTokenValid(request, body.csrf)) await endSession(request, reply);
  return seeOther(reply, withQuery('/login', authorizationParams(authz)));
}

/** POST /login/tenants: the stores the seller chose, on to /consent (spec-notes I9). */
async function chooseStores(request: FastifyRequest, reply: FastifyReply) {
  const body = asParams(request.body);
  const authz = await authorizationRequestOrReply(request, reply, body);
  if (!authz) return reply;
  const seller = await loggedInSeller(request);
  if (!seller || !csrfTokenValid(request, body.csrf)) return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  const tenants = chosenTenants(authz, seller, body.tenant);
  if (!tenants) return renderTenantChoice(request, reply, authz, seller, requestTranslator(request).text('tenants.error.none'));
  return seeOther(reply, withQuery('/consent', { ...authorizationParams(authz), tenant: tenants }));
}

/** GET /consent: the consent screen when some scope is new (I10), else straight back with a code. */
async function consentPage(request: FastifyRequest, reply: FastifyReply) {
  const query = asParams(request.query);
  const authz = await authorizationRequestOrReply(request, reply, query);
  if (!authz) return reply;
  const seller = await loggedInSeller(request);
  if (!seller) return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  const tenants = chosenTenants(authz, seller, query.tenant);
  if (!tenants) return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  const subject = { clientId: authz.client.id, sellerId: seller.id, tenants };
  if (!(await consentNeeded(request.server.platform.database.db, subject, authz.scopes))) {
    return redirectWithCode(request, reply, authz, seller, tenants);
  }
  const t = requestTranslator(request);
  return sendPage(reply, {
    title: t.text('consent.title', { client: authz.client.name }),
    t,
    switchBack: request.url,
    redirectUri: authz.redirectUri,
    body: consentView(t, {
      clientName: authz.client.name,
      sellerName: seller.name,
      scopes: authz.scopes,
      tenantNames: seller.tenants.filter((t) => tenants.includes(t.id)).map((t) => t.name),
      termsOfUseUrl: authz.client.termsOfUseUrl,
      privacyPolicyUrl: authz.client.privacyPolicyUrl,
      params: authorizationParams(authz),
      tenantIds: tenants,
      csrf: csrfToken(request, reply),
    }),
  });
}

/** POST /consent: approved, the consent is recorded and the app gets its code; denied, it gets access_denied. */
async function answerConsent(request: FastifyRequest, reply: FastifyReply) {
  const body = asParams(request.body);
  const authz = await authorizationRequestOrReply(request, reply, body);
  if (!authz) return reply;
  const seller = await loggedInSeller(request);
  const tenants = seller ? chosenTenants(authz, seller, body.tenant) : null;
  if (!seller || !tenants || !csrfTokenValid(request, body.csrf)) {
    return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  }
  if (body.decision !== 'approve') {
    return seeOther(
      reply,
      redirectBack(request.server.platform.config.authUrl, authz.redirectUri, {
        error: 'access_denied',
        error_description: 'The seller denied access',
        state: authz.state,
      }),
    );
  }
  const { database, clock } = request.server.platform;
  await recordConsent(database.db, { clientId: authz.client.id, sellerId: seller.id, tenants }, authz.scopes, clock);
  return redirectWithCode(request, reply, authz, seller, tenants);
}
