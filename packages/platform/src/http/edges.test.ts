import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../test/lists/list-fixtures.js';
import { createTestPlatform, type TestPlatform, testDatabaseTargets } from '../testing.js';
import { firstDuplicateKey } from './json-body-parser.js';

// Every refusal, the framework's and Node's included, in the platform error shape.
const ERROR_SHAPE = {
  message: expect.any(String),
  slug: expect.any(String),
  details: expect.any(Array),
  request_id: expect.any(String),
};

describe('firstDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":{"b":1,"b":2}}', 'b'],
    ['[{"x":1},{"x":2,"y":[1,{"z":0,"z":1}]}]', 'z'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"k":"a\\"b","k":0}', 'k'],
  ])('RFC 8259 §4: %s repeats %s', (text, key) => {
    expect(firstDuplicateKey(text)).toBe(key);
  });

  it.each([
    '{"a":1,"b":{"a":2}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":["a","a"]}',
    '{"a\\"":1,"a":2}',
    '{}',
    '[]',
    '"x"',
    '{"a":{},"b":{}}',
  ])('%s has no repeated key', (text) => {
    expect(firstDuplicateKey(text)).toBeNull();
  });
});

describe.each(testDatabaseTargets())('request edges on $dialect', (target) => {
  let platform: TestPlatform;
  let base: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
    await platform.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(platform.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => platform?.close());

  const seller = { name: 'Ana', login: `ana-${Date.now()}@shop.test`, password: 'a long password', tenants: [] };
  const postSeller = (headers: Record<string, string>, payload: string) =>
    platform.app.inject({ method: 'POST', url: '/admin/v1/sellers', headers: { ...ADMIN, ...headers }, payload });

  it.each([
    ['text/plain', 'text/plain', JSON.stringify(seller), 415],
    ['a form', 'application/x-www-form-urlencoded', 'name=Ana', 415],
    ['JSON in latin1', 'application/json; charset=latin1', JSON.stringify(seller), 415],
    ['JSON in ISO-8859-1 (quoted)', 'application/json; charset="ISO-8859-1"', JSON.stringify(seller), 415],
    [
      'JSON with a duplicate key',
      'application/json',
      `{"name":"Ana","login":"x@shop.test","login":"y@shop.test","password":"a long password","tenants":[]}`,
      400,
    ],
    ['a body over 1 MiB', 'application/json', JSON.stringify({ ...seller, name: 'x'.repeat(1024 * 1024) }), 413],
  ])(
    'spec-notes L9: an admin POST with %s is refused (%i) in the platform error shape, with nosniff',
    async (_what, type, payload, status) => {
      const res = await postSeller({ 'content-type': type }, payload);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toEqual(ERROR_SHAPE);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it('a duplicate key names the key; the same body without it is accepted, UTF-8 declared or not', async () => {
    const dup = await postSeller(
      { 'content-type': 'application/json' },
      '{"name":"Ana","login":"x@shop.test","login":"y@shop.test","password":"a long password","tenants":[]}',
    );
    expect(dup.json()).toEqual({
      message: 'Bad request',
      slug: 'BAD_REQUEST',
      details: [{ field: 'login', location: 'body', message: 'appears more than once in one object', slug: 'DUPLICATE_KEY' }],
      request_id: expect.any(String),
    });
    expect((await postSeller({ 'content-type': 'application/json; charset=UTF-8' }, JSON.stringify(seller))).statusCode).toBe(
      201,
    );
  });

  it('RFC 8259 §8.1: JSON in another charset is refused saying so, the charset named in the detail', async () => {
    const latin1 = await postSeller({ 'content-type': 'application/json; charset="ISO-8859-1"' }, JSON.stringify(seller));
    expect(latin1.json()).toEqual({
      message: 'JSON bodies must be UTF-8',
      slug: 'UNSUPPORTED_MEDIA_TYPE',
      details: [
        {
          field: 'content-type',
          location: 'header',
          message: 'charset iso-8859-1 is not UTF-8',
          slug: 'INVALID_PARAMETER_VALUE',
        },
      ],
      request_id: expect.any(String),
    });
  });

  it('spec-notes L9: a 5,000-character path id is 414 and a broken percent-escape 400, both in the platform error shape', async () => {
    const long = await platform.app.inject({ url: `/v1/orders/${'a'.repeat(5000)}`, headers: ADMIN });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ ...ERROR_SHAPE, slug: 'URI_TOO_LONG' });
    expect(long.headers['x-content-type-options']).toBe('nosniff');
    const broken = await platform.app.inject({ url: '/v1/orders/%E0%A4%A' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ ...ERROR_SHAPE, slug: 'BAD_REQUEST' });
  });

  it('spec-notes L9: a 20,000-character query (refused by Node before any route) is 431 in the platform error shape', async () => {
    const res = await fetch(`${base}/v1/orders?q=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toEqual({ ...ERROR_SHAPE, slug: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
  });

  it('X-Content-Type-Options: nosniff on API answers, errors, pages, the token endpoint and metrics', async () => {
    for (const url of [
      '/health',
      '/metrics',
      '/no-such-route',
      '/v1/orders',
      '/.well-known/jwks.json',
      '/login',
      '/consent.js',
    ]) {
      const res = await platform.app.inject({ url });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const token = await platform.app.inject({ method: 'POST', url: '/oauth/token', payload: {} });
    expect(token.headers['x-content-type-options']).toBe('nosniff');
  });

  it('spec-notes I2: the token endpoint refuses a JSON body with a duplicate key as invalid_request', async () => {
    const res = await platform.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":"refresh_token","grant_type":"authorization_code"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('RFC 6750 §2.1 / RFC 9110 §11.1: the Bearer scheme is case-insensitive', async () => {
    const tenantId = (await platform.createSeller()).tenantIds[0] as string;
    const token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await platform.app.inject({ url: '/v1/orders', headers: { authorization: `${scheme} ${token}` } });
      expect(res.statusCode, scheme).toBe(200);
    }
  });
});
