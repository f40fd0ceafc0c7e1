import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { findNul } from './nul-guard.js';

describe('findNul', () => {
  it('names the first string or key holding U+0000 by its dotted path', () => {
    expect(findNul({ items: [{ sku: 'ok' }, { sku: 'A\u0000' }] })).toBe('items.1.sku');
    expect(findNul({ 'bad\u0000key': 1 })).toBe('bad\u0000key');
    expect(findNul('\u0000')).toBe('(root)');
    expect(findNul({ a: ['x', 2, null, { b: 'y' }] })).toBeNull();
  });

  it('walks a body nested deeper than the call stack allows', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findNul(deep)).toMatch(/^(0\.){199999}0$/);
  });
});

// PostgreSQL text cannot hold U+0000: before the guard each of these was a 500 there.
describe.each(testDatabaseTargets())('NUL characters in requests on $dialect', (target) => {
  let platform: TestPlatform;
  let tenantId: string;
  let sellerToken: string;
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  beforeAll(async () => {
    platform = await createTestPlatform(target);
    tenantId = (await platform.createSeller()).tenantIds[0] as string;
    sellerToken = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
  });
  afterAll(() => platform?.close());

  it.each([
    ['a path parameter', 'GET', '/v1/orders/%00', undefined, 'id', 'path'],
    ['a filter value', 'GET', '/v1/orders?id=%00', undefined, 'id', 'query'],
    ['a query parameter name', 'GET', '/v1/orders?st%00atus=approved', undefined, 'st\u0000atus', 'query'],
    [
      'a nested body field',
      'POST',
      '/storefront/v1/quotes',
      { tenant_id: 'TENANT', zipcode: '20040002', items: [{ sku: 'A\u0000', quantity: 1 }] },
      'items.0.sku',
      'body',
    ],
    [
      'an admin body field',
      'POST',
      '/admin/v1/sellers',
      { name: 'N\u0000', login: 'n@shop.test', password: 'a long password', tenants: [] },
      'name',
      'body',
    ],
  ] as const)('L9: U+0000 in %s is a 422 naming the field, never a 500', async (_what, method, url, body, field, location) => {
    const payload = body ? JSON.parse(JSON.stringify(body).replace('TENANT', tenantId)) : undefined;
    const headers = url.startsWith('/admin') ? admin : url.startsWith('/v1') ? { authorization: `Bearer ${sellerToken}` } : {};
    const response = await platform.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      message: 'Unprocessable entity',
      slug: 'UNPROCESSABLE_ENTITY',
      details: [{ field, location, message: 'must not contain the NUL character (U+0000)', slug: 'INVALID_PARAMETER_VALUE' }],
      request_id: expect.any(String),
    });
  });

  it('spec Authentication / RFC 6749 §5.2: U+0000 in a token request is invalid_request, not a server error', async () => {
    const response = await platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&code=x&client_id=%00&client_secret=y&redirect_uri=https%3A%2F%2Fa.example%2Fcb',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });
});
