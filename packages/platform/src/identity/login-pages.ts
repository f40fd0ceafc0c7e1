import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findSellerById, findSellerByLogin, type Seller } from '../admin/seller-repository.js';
import { verifyPassword } from '../core/hashing.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import {
  type AuthorizationRequest,
  authorizationParams,
  parseAuthorizationRequest,
  type RawParams,
  redirectBack,
} from './authorization-request.js';
import { consentNeeded, recordConsent } from './consent-store.js';
import { sendPage } from './html-page.js';
import { csrfToken, csrfTokenValid, endSession, sessionSellerId, startSession } from './login-session.js';
import { clearLoginFailures, loginRetryAfterSeconds, recordLoginFailure } from './login-throttle.js';
import { consentView, errorView, loginView, tenantChoiceView } from './page-views.js';

// Checked when the login is unknown, so an unknown login costs as much time as a wrong password.
const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$1$ZmVpcmEtZHVtbXktc2FsdA$4yMZC4XYGj4f9PQQ6aeRPihoR3gPn9hwM6mGfGbUXdk';
const MAX_LOGIN_LENGTH = 256;
const MAX_PASSWORD_LENGTH = 1024;

function asParams(value: unknown): RawParams {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as RawParams) : {};
}

/** 303 See Other (issue 3 §2: 303 after POST), with the same no-store / no-referrer headers as the pages. */
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
    sendPage(reply, { status: 400, title: 'Invalid request', body: errorView(result.message) });
  } else {
    seeOther(
      reply,
      redirectBack(result.redirectUri, { error: result.error, error_description: result.description, state: result.state }),
    );
  }
  return null;
}

async function loggedInSeller(request: FastifyRequest): Promise<Seller | null> {
  const sellerId = sessionSellerId(request);
  if (!sellerId) return null;
  return (await findSellerById(request.server.platform.database.db, sellerId)) ?? null;
}

function renderLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  authz: AuthorizationRequest,
  extra: { status?: number; error?: string; login?: string } = {},
): FastifyReply {
  return sendPage(reply, {
    status: extra.status ?? 200,
    title: 'Sign in',
    redirectUri: authz.redirectUri,
    body: loginView({
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
  return sendPage(reply, {
    status: error ? 422 : 200,
    title: 'Choose your stores',
    redirectUri: authz.redirectUri,
    body: tenantChoiceView({
      clientName: authz.client.name,
      sellerName: seller.name,
      tenants: seller.tenants,
      params: authorizationParams(authz),
      csrf: csrfToken(request, reply),
      ...(error ? { error } : {}),
    }),
  });
}

/** The tenants named in the request, if they are all the seller's own and fit choose_tenants (SPEC-DECISIONS I9). */
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
  const code = await issueAuthorizationCode(request.server.platform, {
    clientId: authz.client.id,
    sellerId: seller.id,
    redirectUri: authz.redirectUri,
    scope: authz.scopes.join(' '),
    tenants,
    codeChallenge: authz.codeChallenge,
  });
  return seeOther(reply, redirectBack(authz.redirectUri, { code, state: authz.state }));
}

/**
 * The pages of "Consent by redirect" (spec, issue 3 §1–2):
 * GET /login → login form, or (with a session) the store choice, or on to /consent;
 * GET /consent → the consent screen when some scope is new (I10), else straight back with a code;
 * POST /login, /login/tenants, /consent, /logout → CSRF-checked, answered with 303.
 * The authorization request travels in the query or hidden fields and is validated again at every step.
 */
export async function loginPages(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };

  app.get('/login', hide, async (request, reply) => {
    const authz = await authorizationRequestOrReply(request, reply, asParams(request.query));
    if (!authz) return reply;
    const seller = await loggedInSeller(request);
    if (!seller) return renderLogin(request, reply, authz);
    if (authz.chooseTenants) {
      if (seller.tenants.length === 0) {
        return seeOther(
          reply,
          redirectBack(authz.redirectUri, {
            error: 'access_denied',
            error_description: 'The seller has no store to grant',
            state: authz.state,
          }),
        );
      }
      return renderTenantChoice(request, reply, authz, seller);
    }
    return seeOther(reply, withQuery('/consent', authorizationParams(authz)));
  });

  app.post('/login', hide, async (request, reply) => {
    const body = asParams(request.body);
    const authz = await authorizationRequestOrReply(request, reply, body);
    if (!authz) return reply;
    if (!csrfTokenValid(request, body.csrf)) {
      return renderLogin(request, reply, authz, { status: 403, error: 'The form expired. Please sign in again.' });
    }
    const login = typeof body.login === 'string' ? body.login.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    if (!login || !password || login.length > MAX_LOGIN_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      return renderLogin(request, reply, authz, {
        status: 422,
        error: 'Enter your login and password.',
        login: login.slice(0, 256),
      });
    }
    const { database, clock } = request.server.platform;
    const waitSeconds = await loginRetryAfterSeconds(database.db, login, clock);
    if (waitSeconds > 0) {
      reply.header('retry-after', String(waitSeconds));
      return renderLogin(request, reply, authz, {
        status: 429,
        login,
        error: `Too many failed attempts. Try again in ${waitSeconds} second${waitSeconds === 1 ? '' : 's'}.`,
      });
    }
    const seller = await findSellerByLogin(database.db, login);
    const passwordOk = await verifyPassword(password, seller?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!seller || !passwordOk) {
      await recordLoginFailure(database.db, login, clock);
      return renderLogin(request, reply, authz, { status: 401, login, error: 'Login or password is incorrect.' });
    }
    await clearLoginFailures(database.db, login);
    startSession(request, reply, seller.id);
    return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  });

  app.post('/logout', hide, async (request, reply) => {
    const body = asParams(request.body);
    const authz = await authorizationRequestOrReply(request, reply, body);
    if (!authz) return reply;
    if (csrfTokenValid(request, body.csrf)) endSession(request, reply);
    return seeOther(reply, withQuery('/login', authorizationParams(authz)));
  });

  app.post('/login/tenants', hide, async (request, reply) => {
    const body = asParams(request.body);
    const authz = await authorizationRequestOrReply(request, reply, body);
    if (!authz) return reply;
    const seller = await loggedInSeller(request);
    if (!seller || !csrfTokenValid(request, body.csrf)) return seeOther(reply, withQuery('/login', authorizationParams(authz)));
    const tenants = chosenTenants(authz, seller, body.tenant);
    if (!tenants) return renderTenantChoice(request, reply, authz, seller, 'Choose at least one of your stores.');
    return seeOther(reply, withQuery('/consent', { ...authorizationParams(authz), tenant: tenants }));
  });

  app.get('/consent', hide, async (request, reply) => {
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
    return sendPage(reply, {
      title: `Allow ${authz.client.name}`,
      redirectUri: authz.redirectUri,
      body: consentView({
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
  });

  app.post('/consent', hide, async (request, reply) => {
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
        redirectBack(authz.redirectUri, {
          error: 'access_denied',
          error_description: 'The seller denied access',
          state: authz.state,
        }),
      );
    }
    const { database, clock } = request.server.platform;
    await recordConsent(database.db, { clientId: authz.client.id, sellerId: seller.id, tenants }, authz.scopes, clock);
    return redirectWithCode(request, reply, authz, seller, tenants);
  });
}
