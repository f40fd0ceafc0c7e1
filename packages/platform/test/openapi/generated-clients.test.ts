import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate as orval } from 'orval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseTargets } from '../../src/test-databases.js';
import { createTestPlatform, type TestPlatform } from '../../src/testing.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
/** Inside the repository (git-ignored) so generated code resolves openapi-fetch from the workspace. */
const root = join(here, '.generated', 'clients');
const [target] = testDatabaseTargets();

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    skipLibCheck: true,
    noEmit: true,
  },
};

/** tsc --strict --noEmit over a directory's tsconfig.json: its diagnostics, '' when it compiles. */
async function compile(dir: string, files: string[]): Promise<string> {
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files }));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const tsc = require.resolve('typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout }),
  );
  return result.stdout;
}

/**
 * The README's calls, through the clients integrators generate from the served
 * document with their usual tools: an admin list with filters, sort and
 * limit, a cursor page of clients, an order list with filters and the store
 * in X-Tenant-Id, the seller's webhook deliveries filtered by status with
 * X-Tenant-Id, a webhook signup, a freight-table upload (text/csv with its
 * query), and a token request. Each is a typed script compiled with
 * `tsc --strict`: a parameter the document left out, or a body it did not
 * declare, is a compile error.
 */
describe('clients generated from the served document', () => {
  let platform: TestPlatform;
  let documentFile: string;
  beforeAll(async () => {
    platform = await createTestPlatform(target!);
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    documentFile = join(root, 'openapi.json');
    await writeFile(documentFile, (await platform.app.inject({ url: '/openapi.json' })).body);
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('openapi-typescript + openapi-fetch: the README calls (admin lists with filters, freight upload, webhook deliveries with X-Tenant-Id) compile with tsc --strict, 0 errors', async () => {
    const dir = join(root, 'openapi-fetch');
    await mkdir(dir, { recursive: true });
    const doc = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(documentFile, 'utf8')));
    await writeFile(join(dir, 'schema.d.ts'), astToString(await openapiTS(doc)));
    await writeFile(
      join(dir, 'calls.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function readmeCalls(baseUrl: string, adminToken: string, accessToken: string, tenantId: string, csv: string) {
  const admin = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${adminToken}\` } });
  const seller = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${accessToken}\` } });
  const sellers = await admin.GET('/admin/v1/sellers', { params: { query: { login__like: 'loja', _sort: 'created_at:desc', _limit: 10 } } });
  const clients = await admin.GET('/admin/v1/clients', { params: { query: { _paginate: 'cursor', name__like: 'app' } } });
  const orders = await seller.GET('/v1/orders', {
    params: {
      query: { status__in: 'approved,invoiced', 'customer.id': 'cust-42', created_at__gte: '2026-01-01T00:00:00Z', _sort: 'total_amount:desc' },
      header: { 'x-tenant-id': tenantId },
    },
  });
  const deliveries = await seller.GET('/seller/v1/webhooks/deliveries', {
    params: { query: { status: 'dead', _paginate: 'cursor' }, header: { 'x-tenant-id': tenantId } },
  });
  const signup = await seller.PUT('/v1/onboarding/signup', {
    params: { header: { 'x-tenant-id': tenantId } },
    body: { webhook: 'https://integrator.example/hooks', topics: ['order'] },
  });
  const upload = await admin.PUT('/admin/v1/tenants/{tenant_id}/shipping/freight-tables/{table_id}', {
    params: { path: { tenant_id: tenantId, table_id: 'normal' }, query: { name: 'Normal', distribution_center_id: 'CD-SP' } },
    body: csv,
    bodySerializer: (body: string) => body,
    headers: { 'content-type': 'text/csv' },
  });
  const quoteCalls = await seller.GET('/seller/v1/shipping/quote-calls', { params: { query: { outcome: 'ok', _limit: 5 } } });
  const token = await seller.POST('/oauth/token', {
    body: { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'id', client_secret: 'secret' },
  });
  const logins: string[] = (sellers.data?.results ?? []).map((s) => String(s.login));
  const codes: string[] = orders.data ? orders.data.results.map((order) => order.code) : [];
  const rows: number | undefined = upload.data?.row_count;
  const retry: string | undefined = token.error?.error;
  return { logins, codes, rows, retry, clients: clients.response.status, deliveries: deliveries.response.status, signup: signup.response.status, quoteCalls: quoteCalls.response.status };
}
`,
    );
    expect(await compile(dir, ['calls.ts', 'schema.d.ts'])).toBe('');
  }, 120_000);

  it('@hey-api/openapi-ts (client-fetch SDK): the README calls compile with tsc --strict, 0 errors', async () => {
    const dir = join(root, 'hey-api');
    await heyApi({
      input: documentFile,
      output: join(dir, 'client'),
      plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
      logs: { level: 'silent' },
    });
    await writeFile(
      join(dir, 'calls.ts'),
      `import { createClient } from './client/client/index.js';
import { adminListClients, adminListSellers, createToken, listOrders, listSellerQuoteCalls, listSellerWebhookDeliveries, putStoreFreightTable, signupWebhooksV1 } from './client/sdk.gen.js';

export async function readmeCalls(baseUrl: string, adminToken: string, accessToken: string, tenantId: string, csv: string) {
  const admin = createClient({ baseUrl, auth: () => adminToken });
  const seller = createClient({ baseUrl, auth: () => accessToken });
  const sellers = await adminListSellers({ client: admin, query: { login__like: 'loja', _sort: 'created_at:desc', _limit: 10 } });
  const clients = await adminListClients({ client: admin, query: { _paginate: 'cursor', name__like: 'app' } });
  const orders = await listOrders({
    client: seller,
    query: { status__in: 'approved,invoiced', 'customer.id': 'cust-42', created_at__gte: '2026-01-01T00:00:00Z', _sort: 'total_amount:desc' },
    headers: { 'x-tenant-id': tenantId },
  });
  const deliveries = await listSellerWebhookDeliveries({ client: seller, query: { status: 'dead', _paginate: 'cursor' }, headers: { 'x-tenant-id': tenantId } });
  const signup = await signupWebhooksV1({ client: seller, headers: { 'x-tenant-id': tenantId }, body: { webhook: 'https://integrator.example/hooks', topics: ['order'] } });
  const upload = await putStoreFreightTable({
    client: admin,
    path: { tenant_id: tenantId, table_id: 'normal' },
    query: { name: 'Normal', distribution_center_id: 'CD-SP' },
    body: csv,
  });
  const quoteCalls = await listSellerQuoteCalls({ client: seller, query: { outcome: 'ok', _limit: 5 } });
  const token = await createToken({ client: seller, body: { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'id', client_secret: 'secret' } });
  const codes: string[] = orders.data ? orders.data.results.map((order) => order.code) : [];
  const rows: number | undefined = upload.data?.row_count;
  const refused: string | undefined = token.error?.error;
  return { codes, rows, refused, sellers: sellers.response?.status, clients: clients.response?.status, deliveries: deliveries.response?.status, signup: signup.response?.status, quoteCalls: quoteCalls.response?.status };
}
`,
    );
    expect(await compile(dir, ['calls.ts'])).toBe('');
  }, 180_000);

  it('orval (fetch client, header parameters on): the README calls compile with tsc --strict, 0 errors', async () => {
    const dir = join(root, 'orval');
    await orval({
      input: { target: documentFile },
      output: { target: join(dir, 'api.ts'), client: 'fetch', mode: 'single', headers: true, baseUrl: 'http://127.0.0.1:8080' },
    });
    await writeFile(
      join(dir, 'calls.ts'),
      `import { adminListClients, adminListSellers, createToken, listOrders, listSellerQuoteCalls, listSellerWebhookDeliveries, putStoreFreightTable, signupWebhooksV1 } from './api.js';

export async function readmeCalls(adminToken: string, accessToken: string, tenantId: string, csv: string) {
  const admin: RequestInit = { headers: { authorization: \`Bearer \${adminToken}\` } };
  const seller: RequestInit = { headers: { authorization: \`Bearer \${accessToken}\` } };
  const sellers = await adminListSellers({ login__like: 'loja', _sort: 'created_at:desc', _limit: 10 }, admin);
  const clients = await adminListClients({ _paginate: 'cursor', name__like: 'app' }, admin);
  const orders = await listOrders(
    { status__in: 'approved,invoiced', 'customer.id': 'cust-42', created_at__gte: '2026-01-01T00:00:00Z', _sort: 'total_amount:desc' },
    { 'x-tenant-id': tenantId },
    seller,
  );
  const deliveries = await listSellerWebhookDeliveries({ status: 'dead', _paginate: 'cursor' }, { 'x-tenant-id': tenantId }, seller);
  const signup = await signupWebhooksV1({ webhook: 'https://integrator.example/hooks', topics: ['order'] }, { 'x-tenant-id': tenantId }, seller);
  const upload = await putStoreFreightTable(tenantId, 'normal', csv, { name: 'Normal', distribution_center_id: 'CD-SP' }, admin);
  const quoteCalls = await listSellerQuoteCalls({ outcome: 'ok', _limit: 5 }, seller);
  const token = await createToken({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'id', client_secret: 'secret' });
  const codes: string[] = orders.status === 200 ? orders.data.results.map((order) => order.code) : [];
  const rows: number | undefined = upload.status === 201 ? upload.data.row_count : undefined;
  return { codes, rows, statuses: [sellers.status, clients.status, deliveries.status, signup.status, quoteCalls.status, token.status] };
}
`,
    );
    expect(await compile(dir, ['calls.ts'])).toBe('');
  }, 180_000);
});
