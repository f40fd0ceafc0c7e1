import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';
import { signUp, storeSubscriptionSecret } from '../../src/webhooks/index.js';
import { type ConsoleSession, operatorSession, sellerSession } from './console-session.js';

/**
 * Secrets on console pages (D98): the BREACH defence (masked CSRF tokens, secret
 * pages never compressed and reflecting nothing) and the reveal behind a
 * confirmation POST, with the password again once the sign-in is older than
 * the window.
 */

const BOTH = 'gzip, br';

/** The body as the browser reads it, whatever encoding the answer came in. */
function decoded(res: LightMyRequestResponse): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString('utf8');
  return res.body;
}

function csrfOf(html: string): string {
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error('no CSRF token in the page');
  return token;
}

/** The token with one character in its middle changed (a change in the last character may fall in base64's unused bits). */
function tampered(token: string): string {
  const i = Math.floor(token.length / 2);
  return `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
}

describe.each(testDatabaseTargets())('secrets on console pages on $dialect (D98)', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  async function storeWithSubscription() {
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    const client = await platform.createClient({ name: 'Acme' });
    const [sub] = await signUp(
      platform.database.db,
      { clientId: client.clientId, tenantId, topics: ['sac_ticket'], url: 'https://hooks.example/in', version: 'v1' },
      platform.app.platform,
    );
    if (!sub) throw new Error('no subscription');
    const stored = await storeSubscriptionSecret(platform.database.db, { tenantId, id: sub.id }, platform.app.platform.box);
    const secret = stored?.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const session = await sellerSession(platform.app, seller);
    const page = `/console/stores/${tenantId}/webhooks/subscriptions/${sub.id}`;
    return { seller, tenantId, secret, session, page };
  }

  /** A request of the session with its cookies, a form and headers of the test's choosing. */
  function send(
    session: ConsoleSession,
    method: 'GET' | 'POST',
    url: string,
    input: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    return platform.app.inject({
      method,
      url,
      cookies: Object.fromEntries(session.cookies),
      headers: {
        ...(input.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...input.headers,
      },
      ...(input.form ? { payload: new URLSearchParams(input.form).toString() } : {}),
    });
  }

  it('D98: GET of the secret page is the confirmation form, never the secret; only the confirmation POST shows it, uncompressed though the client takes gzip and br, not stored, and reflecting none of the request', async () => {
    const { secret, session, page } = await storeWithSubscription();
    const subscriptionPage = await send(session, 'GET', page, { headers: { 'accept-encoding': BOTH } });
    expect(decoded(subscriptionPage)).not.toContain(secret);

    const asked = await send(session, 'GET', `${page}/secret`, { headers: { 'accept-encoding': BOTH } });
    expect(asked.statusCode).toBe(200);
    const form = decoded(asked);
    expect(form).not.toContain(secret);
    expect(form).toContain(`action="${page}/reveal"`);
    expect(form).toContain('name="confirmed" value="1"');
    // The confirm button is not styled as destructive: showing a secret changes nothing.
    expect(form).not.toMatch(/<button[^>]*class="danger"[^>]*>Reveal the secret/);

    // A reveal POST without the confirmation is the same form.
    const unconfirmed = await send(session, 'POST', `${page}/reveal`, { form: { csrf: csrfOf(form) } });
    expect(unconfirmed.statusCode).toBe(200);
    expect(decoded(unconfirmed)).not.toContain(secret);

    const probe = 'REFLECTED-PROBE-7f3a';
    const revealed = await send(session, 'POST', `${page}/reveal?probe=${probe}&notice=expired`, {
      form: { csrf: csrfOf(form), confirmed: '1' },
      headers: { 'accept-encoding': BOTH },
    });
    expect(revealed.statusCode).toBe(200);
    expect(revealed.headers['content-encoding']).toBeUndefined();
    expect(revealed.headers['cache-control']).toBe('no-store');
    expect(revealed.body).toContain(`value="${secret}"`);
    expect(revealed.body).not.toContain(probe);
    // The language and time-zone links come back to the subscription page, not to the URL posted to.
    expect(revealed.body).toContain(`back=${encodeURIComponent(page)}`);
    expect(revealed.body).not.toContain('role="status"');
  });

  it('D98: no compression oracle: the CSRF token is different bytes in every answer, and the secret page is the same size and uncompressed whatever guess of the secret the URL carries', async () => {
    const { secret, session, page } = await storeWithSubscription();
    const tokens = new Set<string>();
    for (const guess of [secret.slice(0, 16), 'whsec_AAAAAAAAAA', secret.slice(0, 16)]) {
      const res = await send(session, 'GET', `${page}?q=${encodeURIComponent(guess)}`, { headers: { 'accept-encoding': BOTH } });
      tokens.add(csrfOf(decoded(res)));
    }
    expect(tokens.size).toBe(3);
    // Each masked token is accepted, none of them is the cookie's token as it is.
    const cookieToken = session.cookies.get('feira_csrf') as string;
    for (const token of tokens) {
      expect(cookieToken).not.toContain(token);
      const ok = await send(session, 'POST', `${page}/reveal`, { form: { csrf: token, confirmed: '1' } });
      expect(ok.body).toContain(`value="${secret}"`);
    }

    const sizes = new Set<number>();
    for (const guess of [secret.slice(0, 16), 'whsec_AAAAAAAAAA', secret.slice(0, 6), secret]) {
      const res = await send(session, 'POST', `${page}/reveal?q=${encodeURIComponent(guess)}`, {
        form: { csrf: [...tokens][0] as string, confirmed: '1' },
        headers: { 'accept-encoding': BOTH },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      sizes.add(res.rawPayload.length);
    }
    expect(sizes.size).toBe(1);
  });

  it('D98: seller console: a masked CSRF token from one answer is accepted; a tampered one, or the bare cookie token, is refused (the form expired, 403 in the error shape for X-CSRF-Token)', async () => {
    const { secret, session, page } = await storeWithSubscription();
    const form = decoded(await send(session, 'GET', `${page}/secret`));
    const token = csrfOf(form);
    const bare = session.cookies.get('feira_csrf') as string;
    for (const wrong of [tampered(token), bare, bare.split('.')[0] as string]) {
      const refused = await send(session, 'POST', `${page}/reveal`, { form: { csrf: wrong, confirmed: '1' } });
      expect(refused.statusCode).toBe(303);
      expect(refused.headers.location).toBe(`${page}?done=expired`);
      expect(refused.body).not.toContain(secret);
    }

    // The console's sign-in form: its page's error.
    const signIn = decoded(await platform.app.inject({ method: 'GET', url: '/console' }));
    const fresh = await platform.app.inject({ method: 'GET', url: '/console' });
    const freshToken = csrfOf(fresh.body);
    expect(csrfOf(signIn)).not.toBe(freshToken);
    const cookies = Object.fromEntries(fresh.cookies.map((c) => [c.name, c.value]));
    const login = (csrf: string) =>
      platform.app.inject({
        method: 'POST',
        url: '/console/login',
        cookies,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ csrf, login: 'nobody', password: 'wrong password' }).toString(),
      });
    const forged = await login(tampered(freshToken));
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('The form expired');
    expect((await login(freshToken)).statusCode).toBe(401);

    // A session write through the API's X-CSRF-Token header: 403 in the platform error shape.
    const api = (csrf: string) =>
      send(session, 'POST', '/seller/v1/webhooks/deliveries/00000000-0000-7000-8000-000000000001/redeliver', {
        headers: { 'x-csrf-token': csrf },
      });
    const refused = await api(tampered(token));
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ slug: 'FORBIDDEN', details: expect.any(Array), request_id: expect.any(String) });
    expect((await api(bare)).statusCode).toBe(403);
    expect((await api(token)).statusCode).toBe(404);
  });

  it('D98: operator console: a masked CSRF token is accepted, a tampered one sends back with the form-expired notice and changes nothing', async () => {
    const operator = await operatorSession(platform.app);
    const accounts = await operator.get('/console/operator');
    const token = csrfOf(accounts.body);
    const create = (csrf: string, login: string) =>
      send(operator, 'POST', '/console/operator/sellers', {
        form: { csrf, name: 'Loja Nova', login, store: 'Loja', password: 'a long enough password' },
      });
    const refused = await create(tampered(token), 'tampered-login');
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toBe('/console/operator?notice=expired');
    const none = await platform.database.db.selectFrom('sellers').select('id').where('login', '=', 'tampered-login').execute();
    expect(none).toEqual([]);
    const created = await create(token, `masked-${Date.now()}`);
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toMatch(/^\/console\/operator\/sellers\/.+\?created=1$/);
  });

  it('D98: a reveal longer than secretRevealReauthSeconds (300 s) after sign-in asks for the password; a missing or wrong one is refused and counted by the sign-in throttle; the right one reveals', async () => {
    expect(platform.app.platform.config.secretRevealReauthSeconds).toBe(300);
    const { seller, secret, session, page } = await storeWithSubscription();
    platform.clock.advanceSeconds(299);
    const inside = await send(session, 'GET', `${page}/secret`);
    expect(inside.body).not.toContain('name="password"');

    platform.clock.advanceSeconds(2);
    const form = await send(session, 'GET', `${page}/secret`);
    expect(form.body).toContain('name="password"');
    expect(form.body).toContain('You signed in more than 5 minutes ago');
    const token = csrfOf(form.body);
    const reveal = (password?: string) =>
      send(session, 'POST', `${page}/reveal`, {
        form: { csrf: token, confirmed: '1', ...(password === undefined ? {} : { password }) },
      });

    // Confirmed from the dialog, without a password: the form asks for it, no error yet.
    const asked = await reveal();
    expect(asked.statusCode).toBe(401);
    expect(asked.body).toContain('name="password"');
    expect(asked.body).not.toContain('role="alert"');
    expect(asked.body).not.toContain(secret);
    const empty = await reveal('');
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('Enter your password to see the secret.');
    expect(empty.body).not.toContain(secret);

    for (let i = 0; i < 3; i++) {
      const wrong = await reveal('not my password');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.body).toContain('That password is not correct. The secret stays hidden.');
      expect(wrong.body).not.toContain(secret);
    }
    // The sign-in throttle counted them: the account is backed off, even for the right password.
    const throttled = await reveal(seller.password);
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.body).toContain('Too many failed attempts');
    expect(throttled.body).not.toContain(secret);
    // The console's own sign-in is held by the same count.
    const signIn = await send(session, 'POST', '/console/login', {
      form: { csrf: token, login: seller.login, password: seller.password },
    });
    expect(signIn.statusCode).toBe(429);

    platform.clock.advanceSeconds(Number(throttled.headers['retry-after']) + 1);
    const right = await reveal(seller.password);
    expect(right.statusCode).toBe(200);
    expect(right.headers['cache-control']).toBe('no-store');
    expect(right.body).toContain(`value="${secret}"`);
  });

  it('D98: the re-authentication window is measured from the sign-in: signing in again reveals without the password', async () => {
    const { seller, secret, page } = await storeWithSubscription();
    platform.clock.advanceSeconds(3600);
    const again = await sellerSession(platform.app, seller);
    const form = await again.get(`${page}/secret`);
    expect(form.body).not.toContain('name="password"');
    const revealed = await again.post(`${page}/reveal`, { confirmed: '1' });
    expect(revealed.statusCode).toBe(200);
    expect(revealed.body).toContain(`value="${secret}"`);
  });
});
