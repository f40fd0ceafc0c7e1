import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createOrders } from '../../test/lists/list-fixtures.js';
import { issueAuthorizationCode } from '../identity/index.js';
import { testDatabaseTargets } from '../test-databases.js';
import { type ListeningPlatform, listenPlatform } from '../testing.js';
import { COMPRESSION_THRESHOLD_BYTES } from './http-conventions.js';

/** What this test uses of simple-oauth2 (a peer without types of its own): the authorization-code client. */
interface SimpleOAuth2 {
  AuthorizationCode: new (config: {
    client: { id: string; secret: string };
    auth: { tokenHost: string; tokenPath: string; revokePath: string };
  }) => {
    getToken(params: { code: string; redirect_uri: string }): Promise<{
      token: Record<string, unknown>;
      revokeAll(): Promise<void>;
    }>;
  };
}
const { AuthorizationCode } = createRequire(import.meta.url)('simple-oauth2') as SimpleOAuth2;

/** The body as it came over the wire, decoded once by its Content-Encoding (never twice). */
function decoded(body: Buffer, encoding: string | string[] | undefined): string {
  if (encoding === 'br') return brotliDecompressSync(body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(body).toString('utf8');
  if (encoding === undefined) return body.toString('utf8');
  throw new Error(`unexpected content-encoding ${String(encoding)}`);
}

/** HTTP conventions (spec-notes H1–H4) on a platform listening on loopback, read with undici (which decodes nothing itself). */
describe.each(testDatabaseTargets())('HTTP conventions on $dialect', (target) => {
  let platform: ListeningPlatform;
  let token: string;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await request(`${platform.url}${path}`, { headers });
    return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
  };

  beforeAll(async () => {
    platform = await listenPlatform(target);
    const seller = await platform.createSeller({ tenants: 1 });
    const tenantId = seller.tenantIds[0] as string;
    await createOrders(platform, tenantId, 30);
    token = await platform.mintAccessToken({ tenants: [tenantId], scopes: ['open:order-order:read'] });
  });
  afterAll(() => platform?.close());

  it.each(['br', 'gzip'])(
    'spec-notes H1: a large answer goes out %s-encoded when accepted, with Vary: Accept-Encoding, and decodes to the same JSON',
    async (encoding) => {
      const plain = await get('/openapi.json');
      expect(plain.headers['content-encoding']).toBeUndefined();
      const encoded = await get('/openapi.json', { 'accept-encoding': encoding });
      expect(encoded.status).toBe(200);
      expect(encoded.headers['content-encoding']).toBe(encoding);
      expect(String(encoded.headers.vary)).toMatch(/accept-encoding/i);
      expect(encoded.body.length).toBeLessThan(plain.body.length / 4);
      expect(JSON.parse(decoded(encoded.body, encoding))).toEqual(JSON.parse(plain.body.toString('utf8')));
    },
  );

  it('spec-notes H1: an answer under the threshold goes out as it is', async () => {
    const small = await get('/.well-known/jwks.json', { 'accept-encoding': 'br, gzip' });
    expect(small.body.length).toBeLessThan(COMPRESSION_THRESHOLD_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('spec-notes H1: the seller list API is compressed, and a console asset already encoded is not encoded twice', async () => {
    // A browser takes both: gzip is preferred (D47).
    const list = await get('/v1/orders?_limit=30', {
      authorization: `Bearer ${token}`,
      'accept-encoding': 'gzip, deflate, br, zstd',
    });
    expect(list.status).toBe(200);
    expect(list.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(list.body, 'gzip')).results).toHaveLength(30);

    const plainCss = await get('/console/assets/console.css');
    for (const accept of ['br', 'gzip', 'br, gzip']) {
      const css = await get('/console/assets/console.css', { 'accept-encoding': accept });
      expect(css.status).toBe(200);
      expect(decoded(css.body, css.headers['content-encoding'])).toBe(plainCss.body.toString('utf8'));
    }
  });

  it('spec-notes H2: a GET answer has a weak ETag; If-None-Match with it is 304 without a body; a change gives another ETag', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const first = await get('/v1/orders?_limit=5&_sort=id', auth);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    // The same ETag whatever the encoding: it names the representation's content, not its bytes on the wire.
    expect((await get('/v1/orders?_limit=5&_sort=id', { ...auth, 'accept-encoding': 'br' })).headers.etag).toBe(etag);

    const again = await get('/v1/orders?_limit=5&_sort=id', { ...auth, 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe('private, no-store');

    const other = await get('/v1/orders?_limit=6&_sort=id', { ...auth, 'if-none-match': etag });
    expect(other.status).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
  });

  it('spec-notes H3: an answer to a request with credentials is Cache-Control: private, no-store; public documents keep their own', async () => {
    expect((await get('/v1/orders?_limit=1', { authorization: `Bearer ${token}` })).headers['cache-control']).toBe(
      'private, no-store',
    );
    expect((await get('/admin/v1/sellers?_limit=1', ADMIN)).headers['cache-control']).toBe('private, no-store');
    // A refused token too: the refusal is about that caller.
    const refused = await get('/v1/orders', { authorization: 'Bearer not-a-token' });
    expect(refused.status).toBe(401);
    expect(refused.headers['cache-control']).toBe('private, no-store');
    expect((await get('/.well-known/jwks.json')).headers['cache-control']).toBe('public, max-age=300');
    expect((await get('/.well-known/jwks.json', { authorization: `Bearer ${token}` })).headers['cache-control']).toBe(
      'public, max-age=300',
    );
  });

  it.each([
    ['DELETE', '/v1/orders', 'GET, HEAD, OPTIONS'],
    ['PUT', '/v1/orders/an-id', 'GET, HEAD, OPTIONS'],
    ['POST', '/.well-known/jwks.json', 'GET, HEAD, OPTIONS'],
    ['GET', '/oauth/token', 'OPTIONS, POST'],
    ['DELETE', '/admin/v1/clients', 'GET, HEAD, OPTIONS, POST'],
  ])(
    'spec-notes H4: %s %s is 405 Method Not Allowed with Allow: %s, in the platform error shape',
    async (method, path, allow) => {
      const response = await request(`${platform.url}${path}`, { method, headers: ADMIN });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe(allow);
      const body = (await response.body.json()) as { slug: string; request_id: string };
      expect(body).toMatchObject({ slug: 'METHOD_NOT_ALLOWED', request_id: expect.any(String) });
    },
  );

  it('spec-notes H4 (RFC 9110 §9.3.7, D109): OPTIONS without Origin is 204 with Allow naming OPTIONS among the methods the path answers', async () => {
    for (const [path, allow] of [
      ['/v1/orders', 'GET, HEAD, OPTIONS'],
      ['/oauth/token', 'OPTIONS, POST'],
    ] as const) {
      const response = await request(`${platform.url}${path}`, { method: 'OPTIONS' });
      expect(response.statusCode).toBe(204);
      expect(response.headers.allow).toBe(allow);
      await response.body.dump();
    }
    const unknown = await request(`${platform.url}/v1/no-such-thing`, { method: 'OPTIONS' });
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();
  });

  it('spec-notes H2 (RFC 9110 §15.4.5, D109): a 304 carries the Vary: Accept-Encoding of its compressed 200', async () => {
    const headers = { 'accept-encoding': 'gzip' };
    const first = await get('/openapi.json', headers);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(String(first.headers.vary)).toMatch(/accept-encoding/i);
    const again = await get('/openapi.json', { ...headers, 'if-none-match': first.headers.etag as string });
    expect(again.status).toBe(304);
    expect(String(again.headers.vary)).toMatch(/accept-encoding/i);
  });

  it('spec-notes H2 (RFC 9110 §13.1.2, D109): If-None-Match: * is 304 when the resource exists, a list matches any of its tags, and a missing resource stays 404', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const star = await get('/v1/orders?_limit=2', { ...auth, 'if-none-match': '*' });
    expect(star.status).toBe(304);
    expect(star.body.length).toBe(0);
    const etag = (await get('/v1/orders?_limit=2', auth)).headers.etag as string;
    expect((await get('/v1/orders?_limit=2', { ...auth, 'if-none-match': `W/"other", ${etag}` })).status).toBe(304);
    expect((await get('/v1/orders?_limit=2', { ...auth, 'if-none-match': 'W/"other"' })).status).toBe(200);
    expect((await get('/v1/orders/no-such-order', { ...auth, 'if-none-match': '*' })).status).toBe(404);
  });

  it('spec-notes H4: a path no route has is still 404', async () => {
    const response = await request(`${platform.url}/v1/no-such-thing`, { method: 'DELETE' });
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
    await response.body.dump();
  });

  it('spec-notes I15 / RFC 7009 §2.2: simple-oauth2 exchanges a code and revokes both tokens: the revocation answers {} as JSON', async () => {
    const seller = await platform.createSeller({ tenants: 1 });
    const redirectUri = 'https://integrator.example/callback';
    const registered = await platform.createClient({ redirectUris: [redirectUri], scopes: ['open:order-order:read'] });
    const code = await issueAuthorizationCode(platform.app.identity, {
      clientId: registered.clientId,
      sellerId: seller.sellerId,
      redirectUri,
      scope: 'open:order-order:read',
      tenants: seller.tenantIds,
      codeChallenge: undefined,
    });
    const client = new AuthorizationCode({
      client: { id: registered.clientId, secret: registered.clientSecret },
      auth: { tokenHost: platform.url, tokenPath: '/oauth/token', revokePath: '/oauth/revoke' },
    });
    const accessToken = await client.getToken({ code, redirect_uri: redirectUri });
    await accessToken.revokeAll();

    const raw = await request(`${platform.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: String(accessToken.token.access_token),
        client_id: registered.clientId,
        client_secret: registered.clientSecret,
      }).toString(),
    });
    expect(raw.statusCode).toBe(200);
    expect(raw.headers['content-type']).toMatch(/^application\/json/);
    expect(await raw.body.json()).toEqual({});
    const refused = await get('/v1/orders', {
      authorization: `Bearer ${String(accessToken.token.access_token)}`,
      'x-tenant-id': seller.tenantIds[0] as string,
    });
    expect(refused.status).toBe(401);
  });
});
