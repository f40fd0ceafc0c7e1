import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { SCOPE_NAMES, TOPIC_NAMES } from '@feira/contract';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { type ListeningPlatform, listenPlatform, TEST_ADMIN_TOKEN } from '../../src/testing.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
/** Inside the repository (git-ignored) so the generated client resolves openapi-fetch from the workspace. */
const generated = join(here, '.generated');

type Operation = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type Document = {
  webhooks: Record<string, { post: Operation & { description: string } }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { flows?: unknown }> };
};

function operations(doc: Document): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

// The first target only: the document does not depend on the database.
const [target] = testDatabaseTargets();

describe('the served OpenAPI document', () => {
  let platform: ListeningPlatform;
  let doc: Document;
  beforeAll(async () => {
    platform = await listenPlatform(target!);
    doc = (await (await fetch(`${platform.url}/openapi.json`)).json()) as Document;
    await mkdir(generated, { recursive: true });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('OpenAPI 3.1: every operation has a unique, stable operationId; component schemas are named, never def-N', () => {
    const ids = operations(doc).map(({ op, method, path }) => op.operationId ?? `${method} ${path} has none`);
    expect(ids.filter((id) => id.includes(' has none'))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['listOrders', 'getOrder', 'createToken', 'revokeToken', 'introspectToken']));
    expect(Object.keys(doc.components.schemas).filter((name) => /^def-\d+$/.test(name))).toEqual([]);
  });

  it('OpenAPI 3.1: each record kind is a named component (record, create body, patch body, list page) that its operations refer to', () => {
    for (const name of ['Order', 'Product', 'Ticket', 'Transaction']) {
      for (const suffix of ['', 'Input', 'Patch', 'List']) expect(doc.components.schemas).toHaveProperty(`${name}${suffix}`);
    }
    const schemaOf = (path: string, method: string, status: string) =>
      JSON.stringify(
        (doc.paths[path] as Record<string, { responses: Record<string, { content: unknown }> }>)[method]?.responses[status]
          ?.content,
      );
    expect(schemaOf('/v1/orders', 'get', '200')).toContain('#/components/schemas/OrderList');
    expect(schemaOf('/v1/orders/{id}', 'get', '200')).toContain('#/components/schemas/Order"');
    expect(JSON.stringify(doc.components.schemas.OrderList)).toContain('#/components/schemas/Order"');
  });

  it('OpenAPI 3.1 / spec-notes I11: an oauth2 authorization-code scheme with the scope catalogue; each seller operation names its scope; public ones security: []', () => {
    expect(doc.components.securitySchemes.feiraOAuth).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: `${platform.url}/login`,
          tokenUrl: `${platform.url}/oauth/token`,
          scopes: Object.fromEntries(SCOPE_NAMES.map((s) => [s, expect.any(String)])),
        },
      },
    });
    const byId = Object.fromEntries(operations(doc).map(({ op }) => [op.operationId, op]));
    expect(byId.listOrders?.security).toEqual([{ feiraOAuth: ['open:order-order:read'] }]);
    expect(byId.listTickets?.security).toEqual([{ feiraOAuth: ['open:ticket:read'] }]);
    expect(byId.signupWebhooksV1?.security).toEqual([{ feiraOAuth: ['open:webhook:write'] }]);
    expect(byId.getHealth?.security).toEqual([]);
    expect(byId.createStorefrontQuote?.security).toEqual([]);
    expect(byId.adminListOrders?.security).toEqual([{ adminToken: [] }]);
  });

  it('spec-notes L1–L8: list operations declare their query parameters from the list declaration, and X-Tenant-Id', () => {
    const listOrders = operations(doc).find(({ op }) => op.operationId === 'listOrders')?.op as Operation;
    const params = Object.fromEntries((listOrders.parameters ?? []).map((p) => [`${p.in}:${p.name}`, p.schema]));
    expect(params['query:_limit']).toMatchObject({ type: 'integer', minimum: 1 });
    expect(params['query:_offset']).toMatchObject({ type: 'integer', maximum: 5000 });
    expect(params['query:_paginate']).toMatchObject({ enum: ['cursor'] });
    expect(params['query:_next_token']).toMatchObject({ type: 'string' });
    expect(params['query:status']).toMatchObject({ enum: ['new', 'approved', 'invoiced', 'shipped', 'delivered', 'cancelled'] });
    expect(params['query:status__in']).toBeDefined();
    expect(params['query:total_amount__gte']).toMatchObject({ type: 'number' });
    expect(params['query:customer.name__like']).toBeDefined();
    expect(params['query:status__like']).toBeUndefined();
    const sort = new RegExp(params['query:_sort']?.pattern as string);
    expect(sort.test('created_at:desc,code')).toBe(true);
    expect(sort.test('status')).toBe(false);
    expect(params['header:x-tenant-id']).toMatchObject({ type: 'string' });
  });

  it('spec-notes L1–L8: every list operation, admin and seller, carries its own list parameters, and only GET operations carry any', () => {
    const queryOf = (id: string) =>
      (operations(doc).find(({ op }) => op.operationId === id)?.op.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => p.name);
    expect(queryOf('adminListSellers')).toEqual(expect.arrayContaining(['_limit', '_sort', 'login', 'login__like']));
    expect(queryOf('adminListClients')).toEqual(expect.arrayContaining(['_limit', '_sort', 'client_id', 'name__like']));
    expect(queryOf('adminListQuoteCalls')).toEqual(expect.arrayContaining(['_limit', '_paginate']));
    expect(queryOf('adminListWebhookDeliveries')).toEqual(expect.arrayContaining(['_limit', '_sort']));
    expect(queryOf('listStoreFreightTables')).toEqual(expect.arrayContaining(['_limit', 'name__like']));
    // The seller's own lists (console session or token) document their parameters too.
    expect(queryOf('listSellerWebhookDeliveries')).toEqual(expect.arrayContaining(['_limit', 'status', 'topic']));
    expect(queryOf('listSellerWebhookSubscriptions')).toEqual(expect.arrayContaining(['_limit', '_sort']));
    expect(queryOf('listSellerQuoteCalls')).toEqual(expect.arrayContaining(['_limit', 'outcome']));
    // A create operation takes a body, not the list's filters.
    expect(queryOf('adminCreateSeller')).toEqual([]);
    expect(queryOf('adminCreateClient')).toEqual([]);
    const withListParameters = operations(doc).filter(({ op }) => op.parameters?.some((p) => p.name === '_limit'));
    expect(withListParameters.filter(({ method }) => method !== 'GET').map(({ op }) => op.operationId)).toEqual([]);
  });

  it('RFC 6749 §5.2 / RFC 7009 / RFC 7662: token, revocation and introspection have request bodies and OAuth error responses', () => {
    for (const id of ['createToken', 'revokeToken', 'introspectToken']) {
      const op = operations(doc).find(({ op }) => op.operationId === id)?.op as Operation;
      expect(op.requestBody, id).toBeDefined();
      expect(Object.keys(op.responses), id).toEqual(expect.arrayContaining(['200', '400', '401']));
      expect(JSON.stringify(op.responses['400']), id).toContain('invalid_request');
    }
  });

  it('spec-notes W3 / W7 / Q1: a webhooks entry per topic with the message schema, the signature headers and how to verify; the seller quote endpoint', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...TOPIC_NAMES, 'shippingQuote'].sort());
    const order = doc.webhooks.order?.post;
    expect(order?.parameters?.map((p) => p.name)).toEqual([
      'X-Webhook-Id',
      'X-Timestamp',
      'X-Signature-256',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    expect(JSON.stringify(order?.requestBody)).toContain('#/components/schemas/WebhookMessage');
    expect(order?.description).toContain('HMAC-SHA256');
    expect(doc.components.schemas).toHaveProperty('WebhookMessage');
    expect(JSON.stringify(doc.webhooks.shippingQuote?.post.responses)).toContain('#/components/schemas/QuoteResponse');
  });

  it('Redocly recommended ruleset: the served document lints with 0 errors and 0 warnings', async () => {
    const file = join(generated, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const cli = require.resolve('@redocly/cli/bin/cli.js');
    const result = await run(process.execPath, [cli, 'lint', file, '--format=json'], { maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('openapi-typescript + openapi-fetch: a generated client compiles with tsc --strict and lists orders with _limit, a filter, _sort and X-Tenant-Id, and calls the token endpoint', async () => {
    await writeFile(join(generated, 'schema.d.ts'), astToString(await openapiTS(doc as never)));
    await writeFile(
      join(generated, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function listAndToken(baseUrl: string, accessToken: string, tenantId: string, clientId: string, clientSecret: string) {
  const api = createClient<paths>({ baseUrl });
  const orders = await api.GET('/v1/orders', {
    params: {
      query: { _limit: 1, status: 'new', _sort: 'created_at:desc' },
      header: { 'x-tenant-id': tenantId },
    },
    headers: { authorization: \`Bearer \${accessToken}\` },
  });
  const codes: string[] = orders.data ? orders.data.results.map((order) => order.code) : [];
  const token = await api.POST('/oauth/token', {
    body: { grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: clientId, client_secret: clientSecret },
  });
  const tokenError: string | undefined = token.error?.error;
  return { status: orders.response.status, codes, limit: orders.data?.meta.page.limit, tokenStatus: token.response.status, tokenError };
}
`,
    );
    await writeFile(
      join(generated, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          outDir: 'out',
          rootDir: '.',
        },
        files: ['client.ts', 'schema.d.ts'],
      }),
    );
    await writeFile(join(generated, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const tsc = require.resolve('typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', join(generated, 'tsconfig.json')]).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(compiled.stdout).toBe('');

    const seller = await platform.createSeller({ tenants: 2 });
    const [, store2] = seller.tenantIds as [string, string];
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
    for (const [code, status] of [
      ['A-1', 'new'],
      ['A-2', 'new'],
      ['A-3', 'shipped'],
    ]) {
      const res = await fetch(`${platform.url}/admin/v1/tenants/${store2}/orders`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({
          code,
          status,
          customer: { id: 'c1', name: 'Ana' },
          items: [{ sku: 'S', quantity: 1, price: 10 }],
        }),
      });
      expect(res.status, await res.text()).toBe(201);
      platform.clock.advanceSeconds(1);
    }
    const token = await platform.mintAccessToken({ tenants: seller.tenantIds, scopes: ['open:order-order:read'] });
    const client = await platform.createClient({ redirectUris: ['https://integrator.example/cb'] });
    const { listAndToken } = (await import(pathToFileURL(join(generated, 'out', 'client.js')).href)) as {
      listAndToken: (...args: string[]) => Promise<Record<string, unknown>>;
    };
    const result = await listAndToken(platform.url, token, store2, client.clientId, client.clientSecret);
    expect(result).toEqual({ status: 200, codes: ['A-2'], limit: 1, tokenStatus: 400, tokenError: 'invalid_grant' });
  }, 120_000);
});

afterAll(async () => {
  await rm(join(generated, 'out'), { recursive: true, force: true });
});
