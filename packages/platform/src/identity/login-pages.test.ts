import cookie from '@fastify/cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform, testConfig } from '../testing.js';
import { endSellerSessions } from './login-session.js';
import { authorizeThroughPages, formFields, loginUrl, PageClient } from './test-support/page-client.js';

const REDIRECT = 'https://integrator.example/callback';

describe.each(testDatabaseTargets())('login and consent pages on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform.close());

  async function setup(input: { tenants?: number; defaultScopes?: Parameters<ListeningPlatform['createClient']>[0] } = {}) {
    const seller = await platform.createSeller({ tenants: input.tenants ?? 2 });
    const client = await platform.createClient({
      name: 'Acme Integrations',
      redirectUris: [REDIRECT],
      scopes: ['open:portfolio:read', 'open:order-order:read', 'open:ticket:read'],
      defaultScopes: ['open:portfolio:read'],
      termsOfUseUrl: 'https://integrator.example/terms',
      privacyPolicyUrl: 'https://integrator.example/privacy',
      ...input.defaultScopes,
    });
    return { seller, client, browser: new PageClient(platform.url) };
  }

  it('spec "Consent by redirect": log in, pick stores, consent, and land on redirect_uri with code and state', async () => {
    const { seller, client, browser } = await setup();
    const result = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state: 'xyz123',
      login: seller.login,
      password: seller.password,
      tenants: [seller.tenantIds[1] as string],
    });
    expect(result.pages).toEqual(['login', 'tenants', 'consent']);
    expect(result.callback.origin + result.callback.pathname).toBe(REDIRECT);
    expect(result.callback.searchParams.get('state')).toBe('xyz123');
    expect(result.callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('spec "Consent by redirect" / spec-notes I10: a second flow with everything granted skips the consent screen', async () => {
    const { seller, client, browser } = await setup();
    const flow = {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state: 's1',
      login: seller.login,
      password: seller.password,
    };
    const first = await authorizeThroughPages(browser, flow);
    expect(first.pages).toEqual(['login', 'tenants', 'consent']);
    const second = await authorizeThroughPages(browser, { ...flow, state: 's2' });
    // The session cookie kept the seller logged in, and every scope was already granted for these stores.
    expect(second.pages).toEqual(['tenants']);
    expect(second.callback.searchParams.get('code')).toBeTruthy();
    expect(second.callback.searchParams.get('state')).toBe('s2');
  });

  it('spec-notes I10: consent is asked again for a scope or a store not yet granted', async () => {
    const { seller, client, browser } = await setup();
    const base = { clientId: client.clientId, redirectUri: REDIRECT, login: seller.login, password: seller.password };
    await authorizeThroughPages(browser, { ...base, scope: 'open:order-order:read', tenants: [seller.tenantIds[0] as string] });
    const newScope = await authorizeThroughPages(browser, {
      ...base,
      scope: 'open:ticket:read',
      tenants: [seller.tenantIds[0] as string],
    });
    expect(newScope.pages).toEqual(['tenants', 'consent']);
    const newStore = await authorizeThroughPages(browser, { ...base, scope: 'open:order-order:read', tenants: seller.tenantIds });
    expect(newStore.pages).toEqual(['tenants', 'consent']);
  });

  it('spec Authentication §2 / spec-notes I10: the consent screen names the client, the merged scopes in plain words and its terms and privacy links', async () => {
    const { seller, client, browser } = await setup();
    let page = await browser.follow(
      loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
    );
    page = await browser.submit(page, '/login', { login: seller.login, password: seller.password });
    page = await browser.submit(page, '/login/tenants', { tenant: seller.tenantIds });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Allow Acme Integrations to access your data?');
    expect(page.body).toContain('Read your orders');
    expect(page.body).toContain('Read your products (portfolio)'); // the client's default scope, merged in
    expect(page.body).not.toContain('Read your customer-service tickets');
    expect(page.body).toContain('href="https://integrator.example/terms"');
    expect(page.body).toContain('href="https://integrator.example/privacy"');
    expect(page.body).toContain('Store 1');
    expect(page.body).toContain('Store 2');
  });

  it('RFC 6749 §4.1.2.1: denying consent goes back with error=access_denied and the state', async () => {
    const { seller, client, browser } = await setup();
    const result = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state: 'abc',
      login: seller.login,
      password: seller.password,
      decision: 'deny',
    });
    expect(result.callback.searchParams.get('error')).toBe('access_denied');
    expect(result.callback.searchParams.get('state')).toBe('abc');
    expect(result.callback.searchParams.get('code')).toBeNull();
  });

  it('RFC 9207 §2: every authorization response carries iss, the issuer of the metadata: the code redirect and every error redirect', async () => {
    const { seller, client, browser } = await setup();
    const issuer = (await platform.app.inject({ url: '/.well-known/oauth-authorization-server' })).json().issuer;
    const approved = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      state: 'ok1',
      login: seller.login,
      password: seller.password,
    });
    expect(approved.callback.searchParams.get('code')).toBeTruthy();
    expect(approved.callback.searchParams.getAll('iss')).toEqual([issuer]);
    const denied = await authorizeThroughPages(new PageClient(platform.url), {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:ticket:read',
      login: seller.login,
      password: seller.password,
      decision: 'deny',
    });
    expect(denied.callback.searchParams.get('error')).toBe('access_denied');
    expect(denied.callback.searchParams.getAll('iss')).toEqual([issuer]);
    const invalid = await new PageClient(platform.url).request(
      'GET',
      `/login?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=token`,
    );
    const location = new URL(invalid.location as string);
    expect(location.searchParams.get('error')).toBe('unsupported_response_type');
    expect(location.searchParams.getAll('iss')).toEqual([issuer]);
  });

  it('spec-notes I9: without choose_tenants the seller picks stores, as with choose_tenants=true, and the token carries them', async () => {
    const { seller, client, browser } = await setup();
    const result = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      chooseTenants: null,
      login: seller.login,
      password: seller.password,
    });
    expect(result.pages).toEqual(['login', 'tenants', 'consent']);
    const res = await platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: REDIRECT,
        code: result.callback.searchParams.get('code') as string,
      },
    });
    const { decodeJwt } = await import('jose');
    expect(decodeJwt(res.json().access_token).tenants).toEqual(seller.tenantIds);
  });

  it('spec-notes I9: choose_tenants=false skips the store choice and grants a personal token without tenants', async () => {
    const { seller, client, browser } = await setup();
    const result = await authorizeThroughPages(browser, {
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      chooseTenants: false,
      login: seller.login,
      password: seller.password,
    });
    expect(result.pages).toEqual(['login', 'consent']);
    const code = result.callback.searchParams.get('code') as string;
    const res = await platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: {
        grant_type: 'authorization_code',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uri: REDIRECT,
        code,
      },
    });
    const { decodeJwt } = await import('jose');
    expect(decodeJwt(res.json().access_token).tenants).toEqual([]);
  });

  it('RFC 6749 §4.1.2.1: an unknown client or a redirect_uri not registered exactly gets an error page, never a redirect', async () => {
    const { client } = await setup();
    const browser = new PageClient(platform.url);
    for (const [clientId, redirectUri] of [
      ['client_unknown', REDIRECT],
      [client.clientId, `${REDIRECT}/`],
      [client.clientId, `${REDIRECT}?x=1`],
      [client.clientId, REDIRECT.toUpperCase()],
      [client.clientId, 'https://evil.example/callback'],
    ] as const) {
      const res = await browser.request(
        'GET',
        loginUrl(platform.url, { clientId, redirectUri, scope: 'open:order-order:read', state: 'st' }),
      );
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.body).toContain('This sign-in link cannot be used');
      expect(res.body).not.toContain('evil.example');
    }
    const missing = await browser.request('GET', `/login?redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code`);
    expect(missing.status).toBe(400);
    expect(missing.location).toBeNull();
  });

  it('spec "Consent by redirect" (response_type=code) / RFC 6749 §4.1.2.1: other request errors redirect back with error and state', async () => {
    const { client } = await setup();
    const browser = new PageClient(platform.url);
    const base = `/login?client_id=${client.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=st`;
    const cases: Array<[string, string]> = [
      [`${base}&response_type=token&scope=open:order-order:read`, 'unsupported_response_type'],
      [`${base}&scope=open:order-order:read`, 'invalid_request'],
      [`${base}&response_type=code&scope=open:webhook:write`, 'invalid_scope'],
      [`${base}&response_type=code&scope=open:nope`, 'invalid_scope'],
      [`${base}&response_type=code&scope=open:order-order:read&scope=open:ticket:read`, 'invalid_request'],
      [`${base}&response_type=code&scope=open:order-order:read&choose_tenants=maybe`, 'invalid_request'],
      [
        `${base}&response_type=code&scope=open:order-order:read&code_challenge=${'a'.repeat(43)}&code_challenge_method=plain`,
        'invalid_request',
      ],
      [`${base}&response_type=code&scope=open:order-order:read&code_challenge=${'a'.repeat(43)}`, 'invalid_request'],
    ];
    for (const [url, error] of cases) {
      const res = await browser.request('GET', url);
      expect(res.status, url).toBe(303);
      const location = new URL(res.location as string);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get('error'), url).toBe(error);
      expect(location.searchParams.get('state')).toBe('st');
    }
  });

  it('every page carries CSP frame-ancestors none, X-Frame-Options DENY, no-referrer and no-store', async () => {
    const { client } = await setup();
    const browser = new PageClient(platform.url);
    const pages = [
      await browser.request(
        'GET',
        loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
      ),
      await browser.request('GET', '/login?client_id=nope'),
    ];
    for (const page of pages) {
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
    }
    // Accessible form: every input has a label.
    expect(pages[0]?.body).toContain('<label for="login">');
    expect(pages[0]?.body).toContain('<label for="password">');
  });

  it('the session cookie is signed, HttpOnly and SameSite=Lax, and a login is answered with 303', async () => {
    const { seller, client } = await setup();
    const browser = new PageClient(platform.url);
    const page = await browser.request(
      'GET',
      loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
    );
    const res = await browser.request('POST', '/login', {
      ...formFields(page.body, '/login'),
      login: seller.login,
      password: seller.password,
    });
    expect(res.status).toBe(303);
    const cookies = (res.headers as unknown as { getSetCookie(): string[] }).getSetCookie();
    const session = cookies.find((c) => c.startsWith('feira_session='));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).not.toMatch(/Secure/i); // http in this test; https sets Secure (next test)
    // A tampered session cookie is no session.
    const value = browser.cookies.get('feira_session') as string;
    browser.cookies.set(
      'feira_session',
      value.replace(/^[^.]/, (c) => (c === 'a' ? 'b' : 'a')),
    );
    const again = await browser.request(
      'GET',
      loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
    );
    expect(again.body).toContain('name="password"');
  });

  it('a form posted without the CSRF token of the signed cookie is refused', async () => {
    const { seller, client } = await setup();
    const browser = new PageClient(platform.url);
    const page = await browser.request(
      'GET',
      loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' }),
    );
    const fields = formFields(page.body, '/login');
    const forged = await browser.request('POST', '/login', {
      ...fields,
      csrf: 'forged',
      login: seller.login,
      password: seller.password,
    });
    expect(forged.status).toBe(403);
    expect(browser.cookies.has('feira_session')).toBe(false);
    const attacker = new PageClient(platform.url); // no CSRF cookie at all (cross-site post)
    const crossSite = await attacker.request('POST', '/login', { ...fields, login: seller.login, password: seller.password });
    expect(crossSite.status).toBe(403);
  });

  it('D98: the login, store-choice and consent pages carry the CSRF token masked, different bytes in every answer; a token from an earlier answer is accepted, a tampered one refused', async () => {
    const { seller, client, browser } = await setup();
    browser.stopAt = REDIRECT;
    const tampered = (token: string) => `${token.slice(0, 40)}${token[40] === 'A' ? 'B' : 'A'}${token.slice(41)}`;
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    const first = await browser.request('GET', url);
    const second = await browser.request('GET', url);
    const token = formFields(first.body, '/login').csrf?.[0] as string;
    expect(token).not.toBe(formFields(second.body, '/login').csrf?.[0]);
    expect(browser.cookies.get('feira_csrf')).not.toContain(token);

    const forged = await browser.request('POST', '/login', {
      ...formFields(first.body, '/login'),
      csrf: tampered(token),
      login: seller.login,
      password: seller.password,
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('The form expired');
    expect(browser.cookies.has('feira_session')).toBe(false);

    // The first answer's token still carries the cookie's token after the second answer was rendered.
    let page = await browser.submit(first, '/login', { login: seller.login, password: seller.password });
    expect(page.body).toContain('action="/login/tenants"');
    const tenantFields = formFields(page.body, '/login/tenants');
    const refusedChoice = await browser.request('POST', '/login/tenants', {
      ...tenantFields,
      csrf: tampered(tenantFields.csrf?.[0] as string),
      tenant: seller.tenantIds,
    });
    expect(refusedChoice.status).toBe(303);
    expect(refusedChoice.location).toContain('/login?');
    page = await browser.submit(page, '/login/tenants', { tenant: seller.tenantIds });
    expect(page.body).toContain('action="/consent"');
    const consentFields = formFields(page.body, '/consent');
    const refusedConsent = await browser.request('POST', '/consent', {
      ...consentFields,
      csrf: tampered(consentFields.csrf?.[0] as string),
      decision: 'approve',
    });
    expect(refusedConsent.status).toBe(303);
    expect(refusedConsent.location).toContain('/login?');
    expect(refusedConsent.location).not.toContain('code=');
    const approved = await browser.submit(page, '/consent', { decision: 'approve' });
    expect(new URL(approved.location as string).searchParams.get('code')).toBeTruthy();
  });

  it('failed logins for one account are slowed down with a growing back-off', async () => {
    const { seller, client } = await setup();
    const browser = new PageClient(platform.url);
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    const attempt = async (password: string) => {
      const page = await browser.request('GET', url);
      return browser.request('POST', '/login', { ...formFields(page.body, '/login'), login: seller.login, password });
    };
    for (let i = 0; i < 3; i++) {
      const res = await attempt('wrong password');
      expect(res.status).toBe(401);
      expect(res.body).toContain('Login or password is incorrect.');
    }
    // The third failure started a back-off: even the right password waits.
    const blocked = await attempt(seller.password);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('1');
    platform.clock.advanceSeconds(1);
    expect((await attempt('wrong again')).status).toBe(401);
    const longer = await attempt(seller.password);
    expect(longer.status).toBe(429);
    expect(longer.headers.get('retry-after')).toBe('2');
    platform.clock.advanceSeconds(2);
    const ok = await attempt(seller.password);
    expect(ok.status).toBe(303);
  });

  it('after logout a replayed copy of the session cookie is refused (the session ends on the server)', async () => {
    const { seller, client, browser } = await setup();
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    let page = await browser.follow(url);
    page = await browser.submit(page, '/login', { login: seller.login, password: seller.password });
    expect(page.body).toContain('action="/login/tenants"');
    // An attacker's copy of every cookie the browser holds.
    const copy = new PageClient(platform.url);
    for (const [name, value] of browser.cookies) copy.cookies.set(name, value);
    expect((await copy.follow(url)).body).toContain('action="/login/tenants"');

    const loggedOut = await browser.submit(page, '/logout');
    expect(loggedOut.body).toContain('name="password"');
    const replayed = await copy.follow(url);
    expect(replayed.body).toContain('name="password"');
    expect(replayed.body).not.toContain('action="/login/tenants"');
  });

  it("ending a seller's sessions (password change, disconnect) signs every browser out", async () => {
    const { seller, client } = await setup();
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    const browsers = [new PageClient(platform.url), new PageClient(platform.url)];
    for (const browser of browsers) {
      const page = await browser.follow(url);
      expect((await browser.submit(page, '/login', { login: seller.login, password: seller.password })).body).toContain(
        'action="/login/tenants"',
      );
    }
    const ended = await endSellerSessions(platform.database.db, seller.sellerId, {
      now: platform.clock.now(),
      reason: 'password_changed',
    });
    expect(ended).toBe(2);
    for (const browser of browsers) expect((await browser.follow(url)).body).toContain('name="password"');
  });

  it('a session cookie in the old stateless format (seller|expiry) is not a session', async () => {
    const { seller, client } = await setup();
    const forged = new PageClient(platform.url);
    const expiry = platform.clock.now().getTime() + 3600_000;
    forged.cookies.set(
      'feira_session',
      encodeURIComponent(cookie.sign(`${seller.sellerId}|${expiry}`, platform.app.platform.config.secretKey)),
    );
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    expect((await forged.follow(url)).body).toContain('name="password"');
  });

  it('the session cookie is Secure when the identity provider is served over https', async () => {
    // Same database, second app with an https auth_url.
    const https = {
      app: await buildApp({
        config: testConfig({ authUrl: 'https://auth.feira.example' }),
        database: platform.database,
        clock: platform.clock,
      }),
    };
    try {
      const seller = await platform.createSeller();
      const client = await platform.createClient({ redirectUris: [REDIRECT] });
      const url = loginUrl('https://auth.feira.example', {
        clientId: client.clientId,
        redirectUri: REDIRECT,
        scope: 'open:order-order:read',
      });
      const page = await https.app.inject({ method: 'GET', url: url.replace('https://auth.feira.example', '') });
      const csrfCookie = page.cookies.find((c) => c.name === 'feira_csrf');
      expect(csrfCookie?.secure).toBe(true);
      const fields = formFields(page.body, '/login');
      const res = await https.app.inject({
        method: 'POST',
        url: '/login',
        cookies: { feira_csrf: csrfCookie?.value as string },
        payload: new URLSearchParams({
          ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v[0] as string])),
          login: seller.login,
          password: seller.password,
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.statusCode).toBe(303);
      const session = res.cookies.find((c) => c.name === 'feira_session');
      expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    } finally {
      await https.app.close();
    }
  });
});
