import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../storage/test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { CLIENT_AUTH_POLICY } from './client-authentication.js';
import { LOGIN_ACCOUNT_POLICY, LOGIN_ADDRESS_POLICY } from './login-throttle.js';
import { formFields, loginUrl, PageClient } from './test-support/page-client.js';

const REDIRECT = 'https://integrator.example/callback';
/** Dozens of real scrypt checks (32 MiB, ~30 ms each on a quiet core): slow when the suite shares a loaded machine. */
const SCRYPT_HEAVY_TIMEOUT_MS = 120_000;

function countBy<T>(values: T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

describe.each(testDatabaseTargets())('login and client-authentication throttle on $dialect', (target) => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target);
  });
  afterAll(() => platform.close());
  // Every test starts with every window and back-off over (the tests share one address, 127.0.0.1).
  afterEach(() => platform.clock.advanceSeconds(LOGIN_ACCOUNT_POLICY.backoff?.maxBlockSeconds ?? 900));

  /** A seller and `attempt`, which posts the login form of one browser (`fresh`: a new browser, as after a login). */
  async function loginForm() {
    const seller = await platform.createSeller();
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const url = loginUrl(platform.url, { clientId: client.clientId, redirectUri: REDIRECT, scope: 'open:order-order:read' });
    const open = async () => {
      const browser = new PageClient(platform.url);
      const fields = formFields((await browser.request('GET', url)).body, '/login');
      return (login: string, password: string) => browser.request('POST', '/login', { ...fields, login, password });
    };
    const attempt = await open();
    return { seller, attempt, fresh: async (login: string, password: string) => (await open())(login, password) };
  }

  it('issue-17 §1: 200 parallel wrong passwords for one login: at most the allowance is checked, the rest get 429 with Retry-After', {
    timeout: SCRYPT_HEAVY_TIMEOUT_MS,
  }, async () => {
    const { seller, attempt } = await loginForm();
    const answers = await Promise.all(Array.from({ length: 200 }, () => attempt(seller.login, 'wrong password')));
    const statuses = countBy(answers.map((a) => a.status));
    // 401 is the answer of a password that was hashed and compared: never more than the allowance.
    expect(statuses.get(401)).toBe(LOGIN_ACCOUNT_POLICY.allowance);
    expect(statuses.get(429)).toBe(200 - LOGIN_ACCOUNT_POLICY.allowance);
    const refused = answers.find((a) => a.status === 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused?.body).toContain('Too many failed attempts');
    // Even the right password waits while the account is throttled …
    expect((await attempt(seller.login, seller.password)).status).toBe(429);
    // … and works once the window and the back-off are over.
    platform.clock.advanceSeconds(LOGIN_ACCOUNT_POLICY.windowSeconds);
    expect((await attempt(seller.login, seller.password)).status).toBe(303);
  });

  it('issue-17 §1: a spray of guesses over many logins from one address is limited per address', {
    timeout: SCRYPT_HEAVY_TIMEOUT_MS,
  }, async () => {
    const { seller, attempt } = await loginForm();
    const statuses: number[] = [];
    // Five at a time: below the per-process bound on password checks, so every refusal here is the address throttle's.
    for (let i = 0; i < LOGIN_ADDRESS_POLICY.allowance + 10; i += 5) {
      const batch = Array.from({ length: 5 }, (_, j) => attempt(`sprayed-${i + j}`, 'Winter2026!'));
      statuses.push(...(await Promise.all(batch)).map((a) => a.status));
    }
    expect(countBy(statuses)).toEqual(
      new Map([
        [401, LOGIN_ADDRESS_POLICY.allowance],
        [429, 10],
      ]),
    );
    // The address is throttled for every login, the right password included, until its window is over.
    expect((await attempt(seller.login, seller.password)).status).toBe(429);
    platform.clock.advanceSeconds(LOGIN_ADDRESS_POLICY.windowSeconds);
    expect((await attempt(seller.login, seller.password)).status).toBe(303);
  });

  it('issue-17 §1: a successful login gives its reservation back, so a seller is never throttled by their own sign-ins', {
    timeout: SCRYPT_HEAVY_TIMEOUT_MS,
  }, async () => {
    const { seller, fresh } = await loginForm();
    for (let i = 0; i < LOGIN_ACCOUNT_POLICY.allowance + 2; i++) {
      expect((await fresh(seller.login, seller.password)).status).toBe(303);
    }
  });

  it('issue-17 §1: password checks beyond the per-process bound are answered 429 with Retry-After, without counting as a failure', async () => {
    const { seller, attempt } = await loginForm();
    const gate = platform.app.identity.passwordChecks;
    const held = Array.from({ length: gate.limit }, () => gate.tryEnter());
    try {
      const busy = await attempt(seller.login, seller.password);
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(busy.body).toContain('Too many sign-ins at once');
    } finally {
      for (const release of held) release?.();
    }
    expect((await attempt(seller.login, seller.password)).status).toBe(303);
  });

  it('issue-17 §1: parallel wrong client secrets: at most the allowance is compared, the rest get 429 temporarily_unavailable', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const guess = (secret: string) =>
      platform.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: secret },
      });
    const total = CLIENT_AUTH_POLICY.allowance + 50;
    const answers = await Promise.all(Array.from({ length: total }, (_, i) => guess(`wrong-${i}`)));
    const statuses = countBy(answers.map((a) => a.statusCode));
    expect(statuses.get(401)).toBe(CLIENT_AUTH_POLICY.allowance);
    expect(statuses.get(429)).toBe(50);
    const refused = answers.find((a) => a.statusCode === 429);
    expect(refused?.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect((await guess(client.clientSecret)).statusCode).toBe(429);
    platform.clock.advanceSeconds(CLIENT_AUTH_POLICY.windowSeconds);
    // Authenticated again: the refresh token itself is what is wrong now.
    const right = await guess(client.clientSecret);
    expect(right.statusCode).toBe(400);
    expect(right.json().error).toBe('invalid_grant');
  });

  it('issue-17 §1: successful client authentications give their reservations back (a busy integration is not throttled)', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const sequential = [];
    for (let i = 0; i < CLIENT_AUTH_POLICY.allowance + 5; i++) {
      sequential.push(
        (
          await platform.app.inject({
            method: 'POST',
            url: '/oauth/token',
            payload: {
              grant_type: 'refresh_token',
              refresh_token: 'x',
              client_id: client.clientId,
              client_secret: client.clientSecret,
            },
          })
        ).statusCode,
      );
    }
    expect(new Set(sequential)).toEqual(new Set([400]));
  });
});
