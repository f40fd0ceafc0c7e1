import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { CLIENT_ADDRESS_POLICY, CLIENT_PAIR_POLICY, clientThrottleKeys } from './client-authentication.js';
import { LOGIN_ACCOUNT_POLICY, LOGIN_ADDRESS_POLICY } from './login-throttle.js';
import { formFields, loginUrl, PageClient } from './test-support/page-client.js';

const REDIRECT = 'https://integrator.example/callback';
/** Dozens of real scrypt checks (32 MiB each, docs/decisions.md D25): slow when the suite shares a loaded machine. */
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

  it('200 parallel wrong passwords for one login: at most the allowance is checked, the rest get 429 with Retry-After', {
    timeout: SCRYPT_HEAVY_TIMEOUT_MS,
  }, async () => {
    const { seller, attempt } = await loginForm();
    const answers = await Promise.all(Array.from({ length: 200 }, () => attempt(seller.login, 'wrong password')));
    const statuses = countBy(answers.map((a) => a.status));
    // 401 is the answer of a password that was hashed and compared: never more than the allowance. Fewer when
    // checks finish fast enough for the account's back-off to block it before the allowance is used up.
    const checked = statuses.get(401) ?? 0;
    expect(checked).toBeGreaterThanOrEqual(LOGIN_ACCOUNT_POLICY.backoff?.freeFailures ?? 1);
    expect(checked).toBeLessThanOrEqual(LOGIN_ACCOUNT_POLICY.allowance);
    expect(statuses.get(429)).toBe(200 - checked);
    const refused = answers.find((a) => a.status === 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused?.body).toContain('Too many failed attempts');
    // Even the right password waits while the account is throttled …
    expect((await attempt(seller.login, seller.password)).status).toBe(429);
    // … and works once the window and the back-off are over.
    platform.clock.advanceSeconds(LOGIN_ACCOUNT_POLICY.windowSeconds);
    expect((await attempt(seller.login, seller.password)).status).toBe(303);
  });

  it('a spray of guesses over many logins from one address is limited per address', {
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

  it('a successful login gives its reservation back, so a seller is never throttled by their own sign-ins', {
    timeout: SCRYPT_HEAVY_TIMEOUT_MS,
  }, async () => {
    const { seller, fresh } = await loginForm();
    for (let i = 0; i < LOGIN_ACCOUNT_POLICY.allowance + 2; i++) {
      expect((await fresh(seller.login, seller.password)).status).toBe(303);
    }
  });

  it('password checks beyond the per-process bound are answered 429 with Retry-After, without counting as a failure', async () => {
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

  /** The throttle row of a key: failures counted in its window (`reserved`), or undefined when none was ever written. */
  const throttleRow = (key: string) =>
    platform.database.db.selectFrom('auth_throttle').selectAll().where('key', '=', key).executeTakeFirst();

  it('spec-notes I21: parallel wrong client secrets from one address: every one compared is counted, none lost; from the allowance on, the address is refused before any comparison, the right secret too, until its window ends', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    // app.inject comes from 127.0.0.1.
    const [pair] = clientThrottleKeys(client.clientId, '127.0.0.1');
    const guess = (secret: string) =>
      platform.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: secret },
      });
    const burst = CLIENT_PAIR_POLICY.allowance + 50;
    const answers = await Promise.all(Array.from({ length: burst }, (_, i) => guess(`wrong-${i}`)));
    const statuses = countBy(answers.map((a) => a.statusCode));
    const compared = statuses.get(401) ?? 0;
    expect(compared + (statuses.get(429) ?? 0)).toBe(burst);
    // Nothing is reserved before a comparison (a success writes nothing), so a burst is compared until the
    // failure that reaches the allowance is written: at least the allowance, at most the attempts then in flight.
    expect(compared).toBeGreaterThanOrEqual(CLIENT_PAIR_POLICY.allowance);
    // Every comparison is counted: each failure is one atomic upsert, none lost to its neighbours.
    expect(Number((await throttleRow(pair?.key as string))?.reserved)).toBe(compared);
    // The bound does not renew within the window: a second burst is refused whole, before any comparison.
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => guess(`again-${i}`)));
    expect(countBy(again.map((a) => a.statusCode))).toEqual(new Map([[429, 50]]));
    expect(Number((await throttleRow(pair?.key as string))?.reserved)).toBe(compared);
    const refused = again[0];
    expect(refused?.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect((await guess(client.clientSecret)).statusCode).toBe(429);
    platform.clock.advanceSeconds(CLIENT_PAIR_POLICY.windowSeconds);
    // Authenticated again: the refresh token itself is what is wrong now.
    const right = await guess(client.clientSecret);
    expect(right.statusCode).toBe(400);
    expect(right.json().error).toBe('invalid_grant');
  });

  it('spec-notes I21: a successful client authentication writes nothing: a busy integration is never throttled, and its successes leave no throttle row', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const [pair, address] = clientThrottleKeys(client.clientId, '127.0.0.1');
    const addressBefore = await throttleRow(address?.key as string);
    const authenticate = () =>
      platform.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
      });
    const statuses: number[] = [];
    for (let i = 0; i < CLIENT_ADDRESS_POLICY.allowance + 5; i++) statuses.push((await authenticate()).statusCode);
    // In parallel too: nothing is reserved, so concurrency is no limit either.
    const parallel = await Promise.all(Array.from({ length: CLIENT_PAIR_POLICY.allowance * 2 }, authenticate));
    statuses.push(...parallel.map((a) => a.statusCode));
    // 400 invalid_grant: authenticated every time; the refresh token is what is wrong.
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect(await throttleRow(pair?.key as string)).toBeUndefined();
    expect(await throttleRow(address?.key as string)).toEqual(addressBefore);
  });
  const agents: Agent[] = [];
  afterAll(() => Promise.all(agents.map((agent) => agent.close())));

  /**
   * Token-endpoint calls over a real socket bound to `localAddress` (any of 127.0.0.0/8 reaches the
   * platform on 127.0.0.1): the platform sees that address as request.ip, as it would a remote client's.
   */
  function clientAt(localAddress: string) {
    const dispatcher = new Agent({ localAddress });
    agents.push(dispatcher);
    return async (path: string, form: Record<string, string>) => {
      const res = await request(`${platform.url}${path}`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      const text = await res.body.text();
      return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: text ? JSON.parse(text) : null };
    };
  }

  it('spec-notes I2: wrong secrets for a client_id from other addresses never refuse its right secret, at the token, revocation and introspection endpoints; each guessing address is throttled', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] });
    const owner = clientAt('127.0.0.3');
    const credentials = { client_id: client.clientId, client_secret: client.clientSecret };
    const endpoints: { path: string; form: Record<string, string> }[] = [
      { path: '/oauth/token', form: { grant_type: 'refresh_token', refresh_token: 'x' } },
      { path: '/oauth/revoke', form: { token: 'x' } },
      { path: '/oauth/introspect', form: { token: 'x' } },
    ];
    // Enough strangers that their failures pass the whole budget a client_id once had (100 a minute).
    const strangers = Array.from({ length: 6 }, (_, i) => clientAt(`127.0.1.${i + 1}`));
    const perStranger = CLIENT_PAIR_POLICY.allowance + 5;
    const guess = (round: number) =>
      Promise.all(
        strangers.map(async (stranger) => {
          // One after another per stranger (strangers in parallel): each is compared exactly up to its allowance.
          const answers = [];
          for (let i = 0; i < perStranger; i++) {
            const { path, form } = endpoints[i % 3] as (typeof endpoints)[number];
            answers.push(await stranger(path, { ...form, client_id: client.clientId, client_secret: `wrong-${round}-${i}` }));
          }
          return { stranger, answers };
        }),
      );

    for (let round = 0; round < 3; round++) {
      const guesses = await guess(round);
      // The owner, elsewhere, is authenticated at every endpoint, in every window the strangers renew …
      const token = await owner('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', ...credentials });
      expect(token.status).toBe(400);
      expect(token.body.error).toBe('invalid_grant');
      expect((await owner('/oauth/revoke', { token: 'x', ...credentials })).status).toBe(200);
      const introspection = await owner('/oauth/introspect', { token: 'x', ...credentials });
      expect(introspection.status).toBe(200);
      expect(introspection.body).toEqual({ active: false });
      for (const { stranger, answers } of guesses) {
        // … while each stranger's own address is throttled: only its pair's allowance was compared …
        expect(countBy(answers.map((a) => a.status))).toEqual(
          new Map([
            [401, CLIENT_PAIR_POLICY.allowance],
            [429, perStranger - CLIENT_PAIR_POLICY.allowance],
          ]),
        );
        const refused = answers.find((a) => a.status === 429);
        expect(refused?.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        expect(Number(refused?.retryAfter)).toBeGreaterThan(0);
        // … even for the right secret, which a guesser does not have.
        expect((await stranger('/oauth/introspect', { token: 'x', ...credentials })).status).toBe(429);
      }
      platform.clock.advanceSeconds(CLIENT_PAIR_POLICY.windowSeconds);
    }
  });

  it('one address guessing over many client_ids is limited per address, and only that address', async () => {
    const pairs = Math.ceil(CLIENT_ADDRESS_POLICY.allowance / CLIENT_PAIR_POLICY.allowance) + 1;
    const clients = await Promise.all(
      Array.from({ length: pairs + 1 }, () =>
        platform.createClient({ redirectUris: [REDIRECT], scopes: ['open:order-order:read'] }),
      ),
    );
    const guesser = clientAt('127.0.0.4');
    const statuses: number[] = [];
    // One after another: a guess compared is counted before the next is read (spec-notes I21 reserves nothing).
    for (const client of clients.slice(0, pairs)) {
      for (let i = 0; i < CLIENT_PAIR_POLICY.allowance; i++) {
        const answer = await guesser('/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: client.clientId,
          client_secret: `wrong-${i}`,
        });
        statuses.push(answer.status);
      }
    }
    const total = pairs * CLIENT_PAIR_POLICY.allowance;
    expect(countBy(statuses)).toEqual(
      new Map([
        [401, CLIENT_ADDRESS_POLICY.allowance],
        [429, total - CLIENT_ADDRESS_POLICY.allowance],
      ]),
    );
    // A client_id it never tried is refused from that address too, until the window is over …
    const untouched = clients[pairs] as (typeof clients)[number];
    const credentials = {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: untouched.clientId,
      client_secret: untouched.clientSecret,
    };
    expect((await guesser('/oauth/token', credentials)).status).toBe(429);
    // … but not from any other address.
    expect((await clientAt('127.0.0.5')('/oauth/token', credentials)).status).toBe(400);
    platform.clock.advanceSeconds(CLIENT_ADDRESS_POLICY.windowSeconds);
    expect((await guesser('/oauth/token', credentials)).status).toBe(400);
  });
});
