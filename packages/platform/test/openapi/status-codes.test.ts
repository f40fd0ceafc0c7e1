import { SCOPE_NAMES } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN } from '../../src/testing.js';

type Operation = {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

const [target] = testDatabaseTargets();

/**
 * Every status code a route really answers is in the document. A crawl
 * sends each operation the requests that lead to its refusals (no credentials, a
 * token for several stores without X-Tenant-Id, a token without the scope, unknown
 * ids, an empty or malformed body, another media type, U+0000 in the query, a bad
 * _limit) and one that succeeds where that needs no data, and checks each answer's
 * status against the operation's documented responses.
 */
describe('documented status codes', () => {
  let platform: ListeningPlatform;
  beforeAll(async () => {
    platform = await listenPlatform(target!);
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('OpenAPI 3.1: a crawl of every operation answers no status code that the document does not declare', async () => {
    const doc = (await (await fetch(`${platform.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const seller = await platform.createSeller({ tenants: 2 });
    const [store1] = seller.tenantIds as [string, string];
    const client = await platform.createClient({ redirectUris: ['https://integrator.example/cb'] });
    const allScopes = await platform.mintAccessToken({ tenants: [store1], scopes: SCOPE_NAMES });
    const bothStores = await platform.mintAccessToken({ tenants: seller.tenantIds, scopes: SCOPE_NAMES });
    const noScope = await platform.mintAccessToken({ tenants: [store1], scopes: [] });
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;

    const undocumented: string[] = [];
    let requests = 0;
    const seen = new Set<string>();
    for (const [template, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const scheme = Object.keys(op.security?.[0] ?? {})[0];
        const good: Record<string, string> =
          scheme === 'feiraOAuth'
            ? { authorization: `Bearer ${allScopes}` }
            : scheme === 'adminToken'
              ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
              : scheme === 'clientSecretBasic'
                ? { authorization: basic }
                : {};
        const withTenant = template.replace('{tenant_id}', store1);
        const unknownIds = withTenant.replace(/\{[^}]+\}/g, 'nope');
        const json = { 'content-type': 'application/json' };
        const attempts: Array<{ path: string; headers: Record<string, string>; body?: string }> = [
          { path: unknownIds, headers: {} },
          { path: unknownIds, headers: good },
          { path: `${unknownIds}?x=%00`, headers: good },
          { path: `${unknownIds}?_limit=0`, headers: good },
          // An unknown store as well as unknown ids.
          { path: template.replace(/\{[^}]+\}/g, 'nope'), headers: good },
        ];
        if (scheme === 'feiraOAuth') {
          attempts.push({ path: unknownIds, headers: { authorization: `Bearer ${bothStores}` } });
          attempts.push({ path: unknownIds, headers: { authorization: `Bearer ${noScope}` } });
          attempts.push({ path: unknownIds, headers: { ...good, 'x-tenant-id': 'not-mine' } });
        }
        if (op.requestBody) {
          for (const body of [
            '{}',
            'not json',
            '{"webhook":"https://example.com/h","tenant_id":"nope","zipcode":"01001000","items":[]}',
          ]) {
            attempts.push({ path: unknownIds, headers: { ...good, ...json }, body });
            attempts.push({ path: unknownIds, headers: { ...json }, body });
          }
          attempts.push({ path: unknownIds, headers: { ...good, 'content-type': 'application/xml' }, body: '<x/>' });
          attempts.push({ path: unknownIds, headers: { ...good, ...json }, body: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}` });
        }
        for (const attempt of attempts) {
          const init: RequestInit = { method: method.toUpperCase(), headers: attempt.headers };
          if (attempt.body !== undefined) init.body = attempt.body;
          const res = await fetch(`${platform.url}${attempt.path}`, init);
          await res.arrayBuffer();
          requests++;
          const status = String(res.status);
          seen.add(status);
          if (!(status in op.responses) && !(`${status[0]}XX` in op.responses)) {
            undocumented.push(`${op.operationId} ${method.toUpperCase()} ${attempt.path.slice(0, 80)} → ${status}`);
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(200);
    // The crawl reaches the refusals it is meant to, so an undocumented one would be seen.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '413', '415', '422']));
    expect([...new Set(undocumented)]).toEqual([]);
  }, 180_000);
});
