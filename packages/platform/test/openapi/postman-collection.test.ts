import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Converter from 'openapi-to-postmanv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/storage/test-databases.js';
import { createTestPlatform, type TestPlatform, testConfig } from '../../src/testing.js';

const COLLECTION = fileURLToPath(new URL('../../postman/feira.postman_collection.json', import.meta.url));
const [target] = testDatabaseTargets();

type Item = { name: string; item?: Item[]; id?: string; request?: Request; response?: unknown[] };
type Request = {
  auth?: { type: string; oauth2?: Array<{ key: string; value: unknown }> };
  url: { raw?: string; host?: string[]; query?: Array<{ key: string; value: string; disabled?: boolean }> };
  header?: Array<{ key: string; value: string; disabled?: boolean }>;
};

/**
 * The Postman collection is generated from the served OpenAPI document by
 * Postman's own converter (openapi-to-postmanv2), then given what the converter
 * leaves out: the authorization code flow with PKCE against {{authUrl}} with the
 * client's own credentials, the store in X-Tenant-Id, list parameters off until
 * wanted, and no random ids (so the file in the repository is reproducible).
 */
async function generate(doc: object, operationScopes: Map<string, string>): Promise<object> {
  const output = await new Promise<{ output: Array<{ data: { item: Item[]; variable?: unknown; auth?: unknown } }> }>(
    (resolve, reject) =>
      Converter.convertV2(
        // Without `pattern`: the converter draws random strings matching it, which would change the file on every run.
        { type: 'json', data: JSON.parse(JSON.stringify(doc, (key, value) => (key === 'pattern' ? undefined : value))) },
        { folderStrategy: 'Tags', requestParametersResolution: 'Schema', includeAuthInfoInExample: false },
        (error, result) => (error || !result?.result ? reject(error ?? new Error(result?.reason)) : resolve(result as never)),
      ),
  );
  const collection = output.output[0]!.data as { info?: Record<string, unknown>; item: Item[]; variable?: unknown };
  const walk = (items: Item[]) => {
    for (const item of items) {
      delete item.id;
      delete item.response;
      if (item.item) walk(item.item);
      const request = item.request;
      if (!request) continue;
      for (const param of request.url.query ?? []) {
        param.disabled = true;
        // The converter draws random examples for patterns and enums; keep only its type placeholders.
        if (!/^<[a-z-]+>$/.test(param.value)) param.value = '';
      }
      for (const header of request.header ?? []) if (header.key === 'x-tenant-id') header.value = '{{tenantId}}';
      if (request.auth?.type === 'oauth2') {
        request.auth.oauth2 = [
          { key: 'grant_type', value: 'authorization_code_with_pkce' },
          { key: 'challengeAlgorithm', value: 'S256' },
          { key: 'authUrl', value: '{{authUrl}}/login' },
          { key: 'accessTokenUrl', value: '{{authUrl}}/oauth/token' },
          { key: 'refreshTokenUrl', value: '{{authUrl}}/oauth/token' },
          { key: 'clientId', value: '{{clientId}}' },
          { key: 'clientSecret', value: '{{clientSecret}}' },
          { key: 'redirect_uri', value: '{{redirectUri}}' },
          { key: 'client_authentication', value: 'header' },
          { key: 'scope', value: operationScopes.get(item.name) ?? '' },
          { key: 'tokenName', value: 'Feira seller token' },
        ];
      } else if (request.auth?.type === 'bearer') {
        request.auth = { type: 'bearer', bearer: [{ key: 'token', value: '{{adminToken}}' }] } as never;
      } else if (request.auth?.type === 'basic') {
        request.auth = {
          type: 'basic',
          basic: [
            { key: 'username', value: '{{clientId}}' },
            { key: 'password', value: '{{clientSecret}}' },
          ],
        } as never;
      }
    }
  };
  walk(collection.item);
  if (collection.info) delete collection.info._postman_id;
  collection.variable = [
    { key: 'baseUrl', value: 'http://127.0.0.1:8080' },
    { key: 'authUrl', value: 'http://127.0.0.1:8080' },
    { key: 'clientId', value: '' },
    { key: 'clientSecret', value: '' },
    { key: 'redirectUri', value: 'https://oauth.pstmn.io/v1/callback' },
    { key: 'tenantId', value: '' },
    { key: 'adminToken', value: '' },
  ];
  return collection;
}

describe('Postman collection', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await createTestPlatform(target!, {
      config: testConfig({ publicUrl: 'http://127.0.0.1:8080', authUrl: 'http://127.0.0.1:8080' }),
    });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('OpenAPI 3.1: the collection in the repository is the one generated from the served document, with the OAuth flow (PKCE) configured; the platform serves it', async () => {
    const doc = (await platform.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { summary?: string; security?: Array<Record<string, string[]>> }>>;
    };
    const scopes = new Map<string, string>();
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) scopes.set(op.summary ?? '', (op.security?.[0]?.feiraOAuth ?? []).join(' '));
    }
    const fresh = `${JSON.stringify(await generate(doc, scopes), null, 2)}\n`;
    if (process.env.FEIRA_WRITE_POSTMAN === '1') await writeFile(COLLECTION, fresh);
    expect(await readFile(COLLECTION, 'utf8')).toBe(fresh);

    const parsed = JSON.parse(fresh) as { item: Item[] };
    const orders = parsed.item.find((folder) => folder.name === 'orders')?.item?.[0]?.request;
    expect(orders?.auth?.oauth2).toEqual(
      expect.arrayContaining([
        { key: 'grant_type', value: 'authorization_code_with_pkce' },
        { key: 'scope', value: 'open:order-order:read' },
      ]),
    );
    expect(orders?.header).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'x-tenant-id', value: '{{tenantId}}' })]),
    );

    const served = await platform.app.inject({ url: '/postman-collection.json' });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-disposition']).toContain('feira.postman_collection.json');
    expect(served.json().item).toEqual(parsed.item);
  }, 60_000);
});
