import { SCOPE_NAMES } from '@feira/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findClientById, verifyClientSecret } from '../accounts/client-repository.js';
import { findSellerByLogin } from '../accounts/seller-repository.js';
import { createTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform, testDatabaseTargets } from '../testing.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe.each(testDatabaseTargets())('admin API on $dialect', (target) => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target);
  });
  afterAll(() => platform.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    platform.app.inject({ method: 'POST', url, headers: { ...auth, ...headers }, payload: payload as object });
  const get = (url: string) => platform.app.inject({ method: 'GET', url, headers: auth });
  let loginCounter = 0;
  const sellerBody = (overrides: Record<string, unknown> = {}) => {
    loginCounter += 1;
    return {
      name: 'Maria',
      login: `maria-${loginCounter}@shop.test`,
      password: 'a long password',
      tenants: [{ name: 'Loja Centro' }, { name: 'Loja Sul' }],
      ...overrides,
    };
  };
  const clientBody = (overrides: Record<string, unknown> = {}) => ({
    name: 'Integrator app',
    redirect_uris: ['https://integrator.example/callback'],
    scopes: ['open:portfolio:read', 'open:order-order:read'],
    default_scopes: ['open:portfolio:read'],
    terms_of_use_url: 'https://integrator.example/terms',
    privacy_policy_url: 'https://integrator.example/privacy',
    ...overrides,
  });
  const expectFieldError = (res: { statusCode: number; json(): unknown }, status: number, field: string) => {
    expect(res.statusCode).toBe(status);
    const body = res.json() as { slug: string; details: Array<{ field: string }>; request_id: string; message: string };
    expect(body).toMatchObject({ slug: expect.any(String), message: expect.any(String), request_id: expect.any(String) });
    expect(body.details.map((d) => d.field)).toContain(field);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  };

  describe('authentication', () => {
    it('spec-notes L9: answers 401 UNAUTHORIZED in the platform error shape without the admin token', async () => {
      for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: TEST_ADMIN_TOKEN }]) {
        const res = await platform.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ slug: 'UNAUTHORIZED', details: [] });
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it('spec-notes I3 / RFC 9110 §11.1: the admin token is accepted whatever the case of the Bearer scheme', async () => {
      for (const authorization of [`bearer ${TEST_ADMIN_TOKEN}`, `BEARER ${TEST_ADMIN_TOKEN}`, `Bearer  ${TEST_ADMIN_TOKEN}`]) {
        const res = await platform.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { authorization } });
        expect(res.statusCode, authorization.replace(TEST_ADMIN_TOKEN, '<token>')).toBe(200);
      }
    });

    it('spec-notes I3 / RFC 6750 §2.1: a malformed Authorization header carrying the admin token is refused with 401', async () => {
      const malformed = [
        `Bearer${TEST_ADMIN_TOKEN}`,
        `Bearer ${TEST_ADMIN_TOKEN} extra`,
        `Bearer ${TEST_ADMIN_TOKEN},`,
        `Bearer "${TEST_ADMIN_TOKEN}"`,
        `Basic ${TEST_ADMIN_TOKEN}`,
        `Token ${TEST_ADMIN_TOKEN}`,
        'Bearer ',
      ];
      for (const authorization of malformed) {
        const res = await platform.app.inject({ method: 'GET', url: '/admin/v1/sellers', headers: { authorization } });
        expect(res.statusCode, authorization.replace(TEST_ADMIN_TOKEN, '<token>')).toBe(401);
        expect(res.json()).toMatchObject({ slug: 'UNAUTHORIZED', details: [], request_id: expect.any(String) });
        expect(res.headers['www-authenticate']).toBe('Bearer realm="feira-admin"');
      }
    });

    it('checks the token before reading the body, so an anonymous caller gets 401 even with a bad body', async () => {
      const res = await platform.app.inject({
        method: 'POST',
        url: '/admin/v1/sellers',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('sellers', () => {
    it('creates a seller with UUID tenants and never returns the password', async () => {
      const res = await post('/admin/v1/sellers', sellerBody({ login: 'maria@shop.test' }));
      expect(res.statusCode).toBe(201);
      const seller = res.json();
      expect(seller).toMatchObject({ name: 'Maria', login: 'maria@shop.test' });
      expect(seller.id).toMatch(UUID_V4);
      expect(seller.tenants).toHaveLength(2);
      for (const tenant of seller.tenants) expect(tenant.id).toMatch(UUID_V4);
      expect(res.body).not.toContain('a long password');
      expect(res.body).not.toContain('scrypt');
      const stored = await findSellerByLogin(platform.database.db, 'maria@shop.test');
      expect(stored?.passwordHash).toMatch(/^scrypt\$/);

      const read = await get(`/admin/v1/sellers/${seller.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(seller);
    });

    it('a duplicate seller login is 409 CONFLICT naming login', async () => {
      const body = sellerBody();
      expect((await post('/admin/v1/sellers', body)).statusCode).toBe(201);
      const again = await post('/admin/v1/sellers', { ...body, name: 'Someone else' });
      expectFieldError(again, 409, 'login');
      expect(again.json().slug).toBe('CONFLICT');
    });

    it('answers 404 NOT_FOUND for an unknown seller id', async () => {
      const res = await get('/admin/v1/sellers/00000000-0000-4000-8000-000000000000');
      expect(res.statusCode).toBe(404);
      expect(res.json().slug).toBe('NOT_FOUND');
    });

    it('bad input: malformed JSON is 400 naming the body', async () => {
      const res = await post('/admin/v1/sellers', '{"name": "x", ', { 'content-type': 'application/json' });
      expectFieldError(res, 400, '(body)');
    });

    it('bad input: wrong types are 422 naming each field', async () => {
      const res = await post('/admin/v1/sellers', sellerBody({ name: 42, tenants: 'Loja' }));
      expectFieldError(res, 422, 'name');
      expectFieldError(res, 422, 'tenants');
      const nested = await post('/admin/v1/sellers', sellerBody({ tenants: [{ name: 7 }] }));
      expectFieldError(nested, 422, 'tenants.0.name');
    });

    it('bad input: unknown fields are 422 UNKNOWN_PARAMETER naming the field, nested too', async () => {
      const res = await post('/admin/v1/sellers', sellerBody({ role: 'admin' }));
      expectFieldError(res, 422, 'role');
      expect(res.json().details[0].slug).toBe('UNKNOWN_PARAMETER');
      const nested = await post('/admin/v1/sellers', sellerBody({ tenants: [{ name: 'A', id: 'mine' }] }));
      expectFieldError(nested, 422, 'tenants.0.id');
    });

    it('bad input: a missing field is 422 MISSING_PARAMETER naming it', async () => {
      const { password: _password, ...body } = sellerBody();
      const res = await post('/admin/v1/sellers', body);
      expectFieldError(res, 422, 'password');
      expect(res.json().details[0].slug).toBe('MISSING_PARAMETER');
    });

    it('bad input: a body over 1 MiB is 413 in the platform error shape, not a 500', async () => {
      const res = await post('/admin/v1/sellers', sellerBody({ name: 'x'.repeat(1024 * 1024 + 10) }));
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({ slug: 'PAYLOAD_TOO_LARGE', request_id: expect.any(String) });
      expect(res.json().details).toEqual([
        { field: '(body)', location: 'body', message: 'is larger than 1048576 bytes', slug: 'INVALID_PARAMETER_VALUE' },
      ]);
    });

    it('bad input: an unknown media type, plain text included, is 415; a JSON array is 422 at the root', async () => {
      for (const [body, type] of [
        ['<seller/>', 'application/xml'],
        ['name=x', 'text/plain'],
      ] as const) {
        const refused = await post('/admin/v1/sellers', body, { 'content-type': type });
        expect(refused.statusCode).toBe(415);
        expect(refused.json().slug).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
      const array = await post('/admin/v1/sellers', '[]', { 'content-type': 'application/json' });
      expectFieldError(array, 422, '(root)');
    });
  });

  describe('clients', () => {
    it('spec Authentication §2, §9: registers a client: the secret is shown once, stored as a hash, and absent from reads and lists', async () => {
      const res = await post('/admin/v1/clients', clientBody());
      expect(res.statusCode).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      const created = res.json();
      expect(created).toMatchObject({
        name: 'Integrator app',
        redirect_uris: ['https://integrator.example/callback'],
        scopes: ['open:portfolio:read', 'open:order-order:read'],
        default_scopes: ['open:portfolio:read'],
        terms_of_use_url: 'https://integrator.example/terms',
        privacy_policy_url: 'https://integrator.example/privacy',
      });
      expect(created.client_id).toMatch(/^client_/);
      expect(created.client_secret.length).toBeGreaterThanOrEqual(43);
      const stored = await findClientById(platform.database.db, created.client_id);
      expect(stored?.secretHash).not.toBe(created.client_secret);
      expect(verifyClientSecret(stored!, created.client_secret)).toBe(true);

      const read = await get(`/admin/v1/clients/${created.client_id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).not.toHaveProperty('client_secret');
      expect(read.body).not.toContain(created.client_secret);
      const { client_secret: _secret, ...withoutSecret } = created;
      expect(read.json()).toEqual(withoutSecret);

      const list = await get('/admin/v1/clients');
      expect(list.body).not.toContain(created.client_secret);
      expect(list.body).not.toContain(stored!.secretHash);
      expect(list.json().results.map((c: { client_id: string }) => c.client_id)).toContain(created.client_id);
    });

    it('spec-notes I11: accepts every scope of the catalogue and no optional URLs', async () => {
      const { terms_of_use_url: _t, privacy_policy_url: _p, ...body } = clientBody({ scopes: SCOPE_NAMES, default_scopes: [] });
      const res = await post('/admin/v1/clients', body);
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ scopes: SCOPE_NAMES, terms_of_use_url: null, privacy_policy_url: null });
    });

    it('spec-notes I11: a scope outside the catalogue is 422 naming it', async () => {
      const res = await post('/admin/v1/clients', clientBody({ scopes: ['open:portfolio:read', 'open:everything:write'] }));
      expectFieldError(res, 422, 'scopes.1');
    });

    it('D108: openid in scopes and default_scopes is accepted (as at any other provider) and not stored: every client may ask for it; openid alone is 422', async () => {
      const res = await post(
        '/admin/v1/clients',
        clientBody({ scopes: ['openid', 'open:portfolio:read'], default_scopes: ['openid', 'open:portfolio:read'] }),
      );
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ scopes: ['open:portfolio:read'], default_scopes: ['open:portfolio:read'] });
      expect((await get(`/admin/v1/clients/${res.json().client_id}`)).json().scopes).toEqual(['open:portfolio:read']);
      expectFieldError(await post('/admin/v1/clients', clientBody({ scopes: ['openid'], default_scopes: [] })), 422, 'scopes');
    });

    it('spec-notes I10: default scopes must be among the client scopes, else 422 naming the entry', async () => {
      const res = await post('/admin/v1/clients', clientBody({ default_scopes: ['open:ticket:read'] }));
      expectFieldError(res, 422, 'default_scopes.0');
    });

    it('RFC 6749 §3.1.2: a relative, fragment-carrying or non-http redirect URI is 422 naming it', async () => {
      for (const uri of ['/callback', 'https://integrator.example/cb#frag', 'javascript:alert(1)', 'not a url']) {
        const res = await post('/admin/v1/clients', clientBody({ redirect_uris: ['https://ok.example/cb', uri] }));
        expectFieldError(res, 422, 'redirect_uris.1');
      }
      const none = await post('/admin/v1/clients', clientBody({ redirect_uris: [] }));
      expectFieldError(none, 422, 'redirect_uris');
    });

    it('terms-of-use and privacy-policy URLs must be absolute http(s) URLs, else 422 naming the field', async () => {
      expectFieldError(
        await post('/admin/v1/clients', clientBody({ terms_of_use_url: 'javascript:x' })),
        422,
        'terms_of_use_url',
      );
      expectFieldError(await post('/admin/v1/clients', clientBody({ privacy_policy_url: 'privacy' })), 422, 'privacy_policy_url');
    });

    it('bad input: wrong types, unknown fields and malformed JSON never give a 500', async () => {
      expectFieldError(await post('/admin/v1/clients', clientBody({ scopes: 'open:portfolio:read' })), 422, 'scopes');
      expectFieldError(await post('/admin/v1/clients', clientBody({ client_secret: 'mine' })), 422, 'client_secret');
      expectFieldError(await post('/admin/v1/clients', '{', { 'content-type': 'application/json' }), 400, '(body)');
      const big = await post('/admin/v1/clients', clientBody({ name: 'x'.repeat(1024 * 1024 + 1) }));
      expect(big.statusCode).toBe(413);
    });

    it('answers 404 NOT_FOUND for an unknown client id', async () => {
      expect((await get('/admin/v1/clients/client_unknown')).statusCode).toBe(404);
    });
  });

  describe('lists (the shared list engine, spec-notes L1–L9)', () => {
    it('filters and sorts sellers like every other list: login__like, _sort=login:desc', async () => {
      for (const login of ['zed@filter.test', 'amy@filter.test']) {
        expect((await post('/admin/v1/sellers', sellerBody({ login }))).statusCode).toBe(201);
      }
      const res = await get('/admin/v1/sellers?login__like=FILTER.TEST&_sort=login:desc');
      expect(res.statusCode).toBe(200);
      expect(res.json().results.map((s: { login: string }) => s.login)).toEqual(['zed@filter.test', 'amy@filter.test']);
      expect(res.json().results[0].tenants.map((t: { name: string }) => t.name)).toEqual(['Loja Centro', 'Loja Sul']);
      expect(res.json().meta.filters).toEqual([{ field: 'login', operator: 'like', value: 'FILTER.TEST' }]);
    });

    it('pages clients with cursors: following links.next walks every client once', async () => {
      for (let i = 0; i < 3; i++)
        expect((await post('/admin/v1/clients', clientBody({ name: `Cursor ${i}` }))).statusCode).toBe(201);
      const total = (await get('/admin/v1/clients')).json().meta.total as number;
      const seen: string[] = [];
      let url: string | null = '/admin/v1/clients?_paginate=cursor&_limit=2';
      while (url) {
        const page = await get(url);
        expect(page.statusCode).toBe(200);
        // Neither a secret nor its hash (`token_endpoint_auth_method` names the method, `client_secret_basic`).
        expect(page.body).not.toContain('"client_secret"');
        expect(page.body).not.toContain('secret_hash');
        seen.push(...page.json().results.map((c: { client_id: string }) => c.client_id));
        const next: string | null = page.json().meta.links.next;
        url = next ? next.replace('http://127.0.0.1:8080', '') : null;
      }
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);
    });

    it('pages sellers with _limit/_offset in the spec envelope, with total and links', async () => {
      for (let i = 0; i < 3; i++) expect((await post('/admin/v1/sellers', sellerBody())).statusCode).toBe(201);
      const all = await get('/admin/v1/sellers?_limit=100');
      const total = all.json().meta.total as number;
      expect(total).toBeGreaterThanOrEqual(3);
      expect(all.json().results).toHaveLength(total);
      expect(all.body).not.toContain('password');

      const second = await get('/admin/v1/sellers?_limit=1&_offset=1');
      expect(second.statusCode).toBe(200);
      const body = second.json();
      expect(body.meta.page).toEqual({ limit: 1, offset: 1, count: 1, max_limit: 100 });
      expect(body.meta.sorts).toEqual([
        { field: 'created_at', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ]);
      expect(body.results[0].id).toBe(all.json().results[1].id);
      expect(body.meta.links.previous).toBe('http://127.0.0.1:8080/admin/v1/sellers?_limit=1&_offset=0');
      expect(body.meta.links.next).toBe('http://127.0.0.1:8080/admin/v1/sellers?_limit=1&_offset=2');
      const last = await get(`/admin/v1/sellers?_limit=1&_offset=${total - 1}`);
      expect(last.json().meta.links.next).toBeNull();
    });

    it('spec-notes L1/L2: _limit above max_limit is clamped and reported; default offset is 0', async () => {
      const res = await get('/admin/v1/clients?_limit=5000');
      expect(res.statusCode).toBe(200);
      expect(res.json().meta.page).toMatchObject({ limit: 100, offset: 0, max_limit: 100 });
    });

    it('spec-notes L1/L6: a bad _limit, _offset or an unknown parameter is 422 naming it in the query', async () => {
      for (const [query, field] of [
        ['_limit=0', '_limit'],
        ['_limit=abc', '_limit'],
        ['_limit=1.5', '_limit'],
        ['_offset=-1', '_offset'],
        ['color=red', 'color'],
        ['password=x', 'password'],
        ['_sort=password_hash', '_sort'],
      ] as const) {
        const res = await get(`/admin/v1/sellers?${query}`);
        expectFieldError(res, 422, field);
        expect(res.json().details[0].location).toBe('query');
      }
    });
  });

  it('describes the admin routes with closed schemas in the OpenAPI document', async () => {
    const doc = (await platform.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/admin/v1/sellers', '/admin/v1/clients', '/admin/v1/sellers/{id}', '/admin/v1/clients/{id}'])
      expect(Object.keys(doc.paths)).toContain(path);
    const body = doc.paths['/admin/v1/clients'].post.requestBody.content['application/json'].schema;
    const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['redirect_uris', 'scopes', 'default_scopes']));
    expect(doc.paths['/admin/v1/clients'].post.security).toEqual([{ adminToken: [] }]);
  });
});
