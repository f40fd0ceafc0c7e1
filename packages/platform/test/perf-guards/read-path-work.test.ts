// Work-count guards of the hot paths (D79): what one request makes the platform do, counted, so a change
// that adds a database round trip, a signature check, a JSON pass or a hook fails here whatever the host's
// speed. Timings stay in the benchmark (BENCHMARKS.md); counts go here.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAuthorizationCode } from '../../src/identity/authorization-codes.js';
import { CLIENT_ADDRESS_POLICY, CLIENT_PAIR_POLICY } from '../../src/identity/client-authentication.js';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';
import { ADMIN } from '../lists/list-fixtures.js';
import { countRequest, countWork, hookCount, type RouteHooks, type WorkCount } from './work-counter.js';

const REDIRECT = 'https://integrator.example/callback';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const PAGE = 20;

/**
 * What to do when a count moves: the message every guard fails with. A new hook, query or check may be
 * the point of a change (a compression or CORS hook, a new rule); then the count here moves with it.
 */
function explain(path: string, what: string): string {
  return (
    `${path}: ${what} changed. If the change meant it (a new check, hook or query the path needs), ` +
    'update the expected count in packages/platform/test/perf-guards/read-path-work.test.ts in the same commit ' +
    'and say in the commit message what the request now does and why; then run `npm run bench -- --quick --only list-api` ' +
    '(or token-endpoint) with `--compare bench/baselines/quick.json` to see what it costs. If it did not, find the ' +
    'added work: the counts below name the kind.'
  );
}

function expectWork(path: string, actual: WorkCount, expected: Partial<WorkCount>): void {
  for (const [kind, count] of Object.entries(expected)) {
    if (process.env.FEIRA_PRINT_WORK) console.log(path, JSON.stringify(actual));
    expect(actual[kind as keyof WorkCount], explain(path, `${kind} (now ${JSON.stringify(actual)})`)).toBe(count);
  }
}

function expectHooks(path: string, hooks: RouteHooks, expected: number): void {
  if (process.env.FEIRA_PRINT_WORK) console.log(path, JSON.stringify(hooks));
  expect(hookCount(hooks), explain(path, `the hooks run (now ${JSON.stringify(hooks)})`)).toBe(expected);
}

/**
 * The hooks a seller API route runs, all stages together: the app's (app.ts and what it registers: the
 * request-id and nosniff header hook, CORS, the HTTP conventions' hooks — the entity tag, the conditional
 * GET's 304 (RFC 9110 §13.1.2, a header lookup when the request has no If-None-Match) and compression —,
 * the NUL guard) and the route's access-token guard. A hook added to app.ts moves this for every route.
 */
const SELLER_ROUTE_HOOKS = 8;

/**
 * The query-tree nodes a list page compiles: its one statement (the route's scoped query, the filter, the
 * sort with its id tiebreak, the keyset condition or offset, the limit), built with the query builder at
 * each request. Keeping the text by the page's shape would leave only the scoped query's 14; measured, that
 * saved no CPU the A/B could tell from its noise (D167), so the page is built as written.
 */
const PAGE_QUERY_NODES = { first: 34, after: 65 };

describe.each(testDatabaseTargets())('work per request on $dialect (D79)', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let token: string;
  let firstId: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    const seller = await platform.createSeller();
    tenantId = seller.tenantIds[0] as string;
    for (let i = 0; i < PAGE + 5; i++) {
      const response = await platform.app.inject({
        method: 'POST',
        url: `/admin/v1/tenants/${tenantId}/orders`,
        headers: ADMIN,
        payload: {
          code: `ORDER-${i}`,
          status: 'approved',
          customer: { id: `cust-${i}`, name: `Customer ${i}` },
          currency: 'BRL',
          items: [{ sku: `SKU-${i}`, quantity: 1 + (i % 3), price: 10.5 }],
          shipping: { id: 'standard', name: 'Standard', type: 'conventional', price: 9.9, delivery_days: 5 },
        },
      });
      if (response.statusCode !== 201) throw new Error(`order ${i}: ${response.statusCode} ${response.body}`);
      platform.clock.advance(1000);
    }
    token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
    const first = await platform.app.inject({ url: '/v1/orders', headers: { authorization: `Bearer ${token}` } });
    firstId = (first.json() as { results: Array<{ id: string }> }).results[0]?.id as string;
    // The first call verified the token's signature; the counts below are of a seller's later calls.
  });
  afterAll(() => platform.close());

  const bearer = () => ({ authorization: `Bearer ${token}` });
  /** The request once uncounted (a route compiles its validators and serializer on its first call), then counted. */
  async function steady(request: Parameters<typeof countRequest>[1]) {
    await platform.app.inject(request);
    return countRequest(platform.app, request);
  }

  it('a list page (cursor page 1) takes from the app’s bucket while reading the revocation state, in one statement (spec-notes I20, I6; D162), and reads the page: two statements, no signature check, one cursor HMAC, two JSON parses per order', async () => {
    const { result, work, hooks } = await steady({
      url: `/v1/orders?status=approved&_sort=created_at:desc&_limit=${PAGE}&_paginate=cursor`,
      headers: bearer(),
    });
    expect(result.statusCode).toBe(200);
    expect(result.json().results).toHaveLength(PAGE);
    expectWork('GET /v1/orders (cursor page 1)', work, {
      databaseStatements: 2,
      signatureVerifications: 0,
      signatures: 0,
      hmacs: 1,
      hashes: 0,
      // Each order's items and shipping are stored as JSON text; the page's filters, binding and cursor are written as JSON.
      jsonParses: 2 * PAGE,
      jsonStringifies: 3,
      queryNodesCompiled: PAGE_QUERY_NODES.first,
    });
    expectHooks('GET /v1/orders (cursor page 1)', hooks, SELLER_ROUTE_HOOKS);
  });

  it('a later cursor page checks its cursor and signs the next one: two HMACs, still two statements', async () => {
    const first = await platform.app.inject({
      url: `/v1/orders?status=approved&_sort=created_at:desc&_limit=5&_paginate=cursor`,
      headers: bearer(),
    });
    const next = new URL((first.json() as { meta: { links: { next: string } } }).meta.links.next);
    const { result, work } = await steady({ url: `${next.pathname}${next.search}`, headers: bearer() });
    expect(result.statusCode).toBe(200);
    expectWork('GET /v1/orders (cursor page 2)', work, {
      databaseStatements: 2,
      signatureVerifications: 0,
      hmacs: 2,
      jsonParses: 2 * 5 + 1,
      jsonStringifies: 3,
      queryNodesCompiled: PAGE_QUERY_NODES.after,
    });
  });

  it('a list page with offsets on a massive collection counts nothing: two statements, no HMAC', async () => {
    const { result, work } = await steady({
      url: `/v1/orders?status=approved&_sort=created_at:desc&_limit=${PAGE}`,
      headers: bearer(),
    });
    expect(result.statusCode).toBe(200);
    expect(result.json().meta.total).toBeUndefined();
    expectWork('GET /v1/orders (offset page 1)', work, {
      databaseStatements: 2,
      signatureVerifications: 0,
      hmacs: 0,
      jsonParses: 2 * PAGE,
      jsonStringifies: 2,
      queryNodesCompiled: PAGE_QUERY_NODES.first,
    });
  });

  it('one record takes from the app’s bucket while reading the revocation state (D162) and reads the record: two statements, no signature check', async () => {
    const { result, work, hooks } = await steady({ url: `/v1/orders/${firstId}`, headers: bearer() });
    expect(result.statusCode).toBe(200);
    expectWork('GET /v1/orders/:id', work, {
      databaseStatements: 2,
      signatureVerifications: 0,
      signatures: 0,
      hmacs: 0,
      hashes: 0,
      jsonParses: 2,
      jsonStringifies: 0,
    });
    expectHooks('GET /v1/orders/:id', hooks, SELLER_ROUTE_HOOKS);
  });

  it('a token the process has not seen is verified once, then never again', async () => {
    const fresh = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
    const url = `/v1/orders/${firstId}`;
    await platform.app.inject({ url, headers: bearer() });
    const once = await countRequest(platform.app, { url, headers: { authorization: `Bearer ${fresh}` } });
    const again = await countRequest(platform.app, { url, headers: { authorization: `Bearer ${fresh}` } });
    expect([once.result.statusCode, again.result.statusCode]).toEqual([200, 200]);
    expectWork('GET /v1/orders/:id (first call with a token)', once.work, { signatureVerifications: 1, databaseStatements: 2 });
    expectWork('GET /v1/orders/:id (next call)', again.work, { signatureVerifications: 0, databaseStatements: 2 });
  });

  /** An access token of a new app whose limit the operator set to one request a second, burst one. */
  async function tokenOfAppLimitedToOnePerSecond(
    scopes: Parameters<TestPlatform['mintAccessToken']>[0]['scopes'] = ['open:order-order:read'],
  ): Promise<string> {
    const { clientId } = await platform.createClient();
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes, clientId });
    const limit = await platform.app.inject({
      method: 'PATCH',
      url: `/admin/v1/clients/${clientId}`,
      headers: ADMIN,
      payload: { rate_limit: { requests_per_second: 1, burst: 1 } },
    });
    expect(limit.statusCode).toBe(200);
    return token;
  }

  it("spec-notes I20: the request that empties its app's bucket costs the route's statements; the refusals after it, until the bucket admits again, cost no statement at all, not even the revocation read (D123)", async () => {
    const limited = await tokenOfAppLimitedToOnePerSecond();
    const url = `/v1/orders/${firstId}`;
    const admitted = await countRequest(platform.app, { url, headers: { authorization: `Bearer ${limited}` } });
    const refused = await countRequest(platform.app, { url, headers: { authorization: `Bearer ${limited}` } });
    expect([admitted.result.statusCode, refused.result.statusCode]).toEqual([200, 429]);
    expectWork('GET /v1/orders/:id (admitted by its bucket)', admitted.work, { databaseStatements: 2 });
    // The admission took the bucket's last request: the process knows when it admits again and asks the
    // database nothing before, the token's revocation state included (a refusal needs only the signed claims).
    expectWork('GET /v1/orders/:id (refused by its emptied bucket, from memory)', refused.work, {
      databaseStatements: 0,
      signatureVerifications: 0,
      jsonParses: 0,
    });
    expect(refused.result.headers['retry-after']).toBe('1');
    expect(refused.result.headers.ratelimit).toBe('"app";r=0;t=1');
    // Once the bucket admits again (one emission interval), the database is asked and admits.
    platform.clock.advance(1000);
    const later = await countRequest(platform.app, { url, headers: { authorization: `Bearer ${limited}` } });
    expect(later.result.statusCode).toBe(200);
  });

  it("spec-notes I20, I14: /userinfo goes through the same guard: the call that empties its app's bucket for the seller takes it with the revocation read in one statement, and the refusal after it costs no statement (D123, D162)", async () => {
    // `openid` is a scope of the identity provider, not of the record APIs the kit's type lists.
    const limited = await tokenOfAppLimitedToOnePerSecond(['openid' as never]);
    const call = { url: '/userinfo', headers: { authorization: `Bearer ${limited}` } };
    const admitted = await countRequest(platform.app, call);
    const refused = await countRequest(platform.app, call);
    expect([admitted.result.statusCode, refused.result.statusCode]).toEqual([200, 429]);
    expectWork('GET /userinfo (admitted by its bucket)', admitted.work, { databaseStatements: 1 });
    expectWork('GET /userinfo (refused by its emptied bucket, from memory)', refused.work, {
      databaseStatements: 0,
      signatureVerifications: 0,
      jsonParses: 0,
    });
    expect(refused.result.headers['retry-after']).toBe('1');
  });

  it('spec-notes I20: when a remembered refusal runs out, one request of a flood asks the database for all; the others wait for its answer and are refused from memory (D159)', async () => {
    const limited = await tokenOfAppLimitedToOnePerSecond();
    const url = `/v1/orders/${firstId}`;
    const call = () => platform.app.inject({ url, headers: { authorization: `Bearer ${limited}` } });
    expect((await call()).statusCode).toBe(200);
    expect((await call()).statusCode).toBe(429);
    platform.clock.advance(1000);
    // Twenty calls at once, all arriving after the bucket admits again: one is admitted, by the one request
    // that asked (the route's two statements); nineteen refused with no statement of their own.
    const flood = await countWork(() => Promise.all(Array.from({ length: 20 }, call)));
    const statuses = flood.result.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 19 }, () => 429)]);
    expectWork('20 × GET /v1/orders/:id at once after a refusal ran out', flood.work, { databaseStatements: 2 });
  });

  async function codeFor(clientId: string): Promise<string> {
    const seller = await platform.createSeller();
    return issueAuthorizationCode(platform.app.identity, {
      clientId,
      sellerId: seller.sellerId,
      redirectUri: REDIRECT,
      scope: 'open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: CHALLENGE,
    });
  }

  function tokenRequest(
    client: { clientId: string; clientSecret: string },
    form: Record<string, string>,
    remoteAddress = '127.0.0.1',
  ) {
    return {
      remoteAddress,
      method: 'POST' as const,
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      },
      payload: new URLSearchParams(form).toString(),
    };
  }

  it('spec-notes I4 amended / I21: a code exchange (PKCE) signs the access token ES256 and the refresh token with one HMAC, verifies none, and writes no throttle row, in a fixed number of statements', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const warm = await codeFor(client.clientId);
    await platform.app.inject(
      tokenRequest(client, { grant_type: 'authorization_code', code: warm, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
    );
    const code = await codeFor(client.clientId);
    const { result, work } = await countRequest(
      platform.app,
      tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expectWork('POST /oauth/token (authorization_code)', work, {
      databaseStatements: EXCHANGE_STATEMENTS[target.dialect],
      // The access token (ES256, a WebCrypto signature); the refresh token is HS256, one HMAC.
      signatures: 1,
      signatureVerifications: 0,
      hmacs: 1,
      hashes: EXCHANGE_HASHES[target.dialect],
      jsonParses: 6,
      jsonStringifies: 4,
      // Only the client authentication's SQL text (a raw template); the exchange's statements are compiled once (D166).
      queryNodesCompiled: 6,
    });
  });

  it('spec-notes I4 amended / I21: a refresh (of a rotated token) checks the refresh token with one HMAC, signs the access token ES256 and the next refresh token with one HMAC, and writes no throttle row, in a fixed number of statements', async () => {
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const code = await codeFor(client.clientId);
    const exchanged = await platform.app.inject(
      tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
    );
    const first = (exchanged.json() as { refresh_token: string }).refresh_token;
    const rotated = await platform.app.inject(tokenRequest(client, { grant_type: 'refresh_token', refresh_token: first }));
    // Once more uncounted: the first refresh of a rotated token compiles the parent's supersede, once per process.
    const again = await platform.app.inject(
      tokenRequest(client, {
        grant_type: 'refresh_token',
        refresh_token: (rotated.json() as { refresh_token: string }).refresh_token,
      }),
    );
    const refreshToken = (again.json() as { refresh_token: string }).refresh_token;
    const { result, work } = await countWork(() =>
      platform.app.inject(tokenRequest(client, { grant_type: 'refresh_token', refresh_token: refreshToken })),
    );
    expect(result.statusCode, result.body).toBe(200);
    expectWork('POST /oauth/token (refresh_token)', work, {
      databaseStatements: REFRESH_STATEMENTS[target.dialect],
      // HS256 verify and sign of the refresh tokens are the two HMACs; ES256 signs the access token alone.
      signatures: 1,
      signatureVerifications: 0,
      hmacs: 2,
      hashes: 3,
      jsonParses: 7,
      jsonStringifies: 4,
      // Only the client authentication's SQL text (a raw template); the grant's statements are compiled once (D166).
      queryNodesCompiled: 6,
    });
  });

  it('spec-notes I21: a wrong client secret costs one read of the client with its throttle keys, its comparison (three SHA-256s) and one upsert counting the failure; from an address over its limit, per client or in all, a request is refused after that read alone: the client row is not parsed and nothing is hashed, so no secret is compared, the right one included', async () => {
    const form = { grant_type: 'refresh_token', refresh_token: 'x' };
    const wrong = (clientId: string) => ({ clientId, clientSecret: 'not-the-secret-of-this-client' });
    const refusedBeforeComparison = async (path: string, request: ReturnType<typeof tokenRequest>) => {
      const { result, work } = await countRequest(platform.app, request);
      expect(result.statusCode, result.body).toBe(429);
      expect(result.json().error).toBe('temporarily_unavailable');
      expectWork(path, work, { databaseStatements: 1, hashes: 0, hmacs: 0, signatureVerifications: 0, jsonParses: 0 });
    };

    // Over the limit of one (client, address) pair.
    const client = await platform.createClient({ redirectUris: [REDIRECT] });
    const pairAddress = '192.0.2.10';
    // Uncounted first: the route compiles its 401 and 429 serializers on their first use.
    await platform.app.inject(tokenRequest(wrong(client.clientId), form, '192.0.2.11'));
    const failed = await countRequest(platform.app, tokenRequest(wrong(client.clientId), form, pairAddress));
    expect(failed.result.statusCode).toBe(401);
    // The comparison: the presented secret's SHA-256 against the stored one, both hashed again to compare in constant time.
    expectWork('POST /oauth/token (wrong client secret)', failed.work, { databaseStatements: 2, hashes: 3 });
    for (let i = 1; i < CLIENT_PAIR_POLICY.allowance; i++) {
      expect((await platform.app.inject(tokenRequest(wrong(client.clientId), form, pairAddress))).statusCode).toBe(401);
    }
    await platform.app.inject(tokenRequest(wrong(client.clientId), form, pairAddress));
    await refusedBeforeComparison(
      'POST /oauth/token (pair over its limit, wrong secret)',
      tokenRequest(wrong(client.clientId), form, pairAddress),
    );
    await refusedBeforeComparison(
      'POST /oauth/token (pair over its limit, right secret)',
      tokenRequest(client, form, pairAddress),
    );

    // Over the limit of an address, its failures spread over client_ids none of which reached its own.
    const address = '192.0.2.20';
    const spread = 10;
    const others = await Promise.all(Array.from({ length: spread }, () => platform.createClient({ redirectUris: [REDIRECT] })));
    for (let i = 0; i < CLIENT_ADDRESS_POLICY.allowance; i++) {
      const target = others[i % spread] as { clientId: string };
      expect((await platform.app.inject(tokenRequest(wrong(target.clientId), form, address))).statusCode).toBe(401);
    }
    const fresh = await platform.createClient({ redirectUris: [REDIRECT] });
    await refusedBeforeComparison(
      'POST /oauth/token (address over its limit, another client)',
      tokenRequest(fresh, form, address),
    );
    // Another address is not refused: the right secret is compared there and accepted (the refresh token is what is wrong).
    const elsewhere = await platform.app.inject(tokenRequest(fresh, form, '192.0.2.30'));
    expect(elsewhere.json().error).toBe('invalid_grant');
    // The windows end: nothing is left to refuse the later tests.
    platform.clock.advanceSeconds(Math.max(CLIENT_PAIR_POLICY.windowSeconds, CLIENT_ADDRESS_POLICY.windowSeconds));
  });
});

/**
 * Statements of one code exchange and of one refresh, BEGIN and COMMIT included.
 * Both: the client read with its throttle keys' rows, in one statement
 * (spec-notes I21: a success writes nothing; a failure alone would add one
 * upsert). An exchange on SQLite: the code read, then its consumption and the
 * refresh token's row in one transaction of two statements; on PostgreSQL one
 * statement of writable CTEs that consumes the code only if every check holds
 * (its client, redirect_uri, challenge, expiry) and records the row (D168). A refresh: the token taken while its family stands
 * (returning its parent), its parent superseded, the new token's row (SQLite:
 * one transaction; PostgreSQL: one statement). D95, D105, D165.
 */
const EXCHANGE_STATEMENTS = { sqlite: 6, postgres: 2 } as const;
/**
 * An exchange's hashes: the code's, the verifier's challenge, and the client secret's comparison (three);
 * SQLite compares the challenge in JavaScript in constant time (two more), PostgreSQL in the statement (D168).
 */
const EXCHANGE_HASHES = { sqlite: 7, postgres: 5 } as const;
const REFRESH_STATEMENTS = { sqlite: 6, postgres: 2 } as const;
