// Trust as users bring it: Node's standard NODE_EXTRA_CA_CERTS (a company CA,
// mkcert's root) must be trusted by `feira start`'s outbound calls beside the
// sandbox's own local CA, for signed webhook deliveries and HTTPS quote calls.
// The receiver's and the seller's certificates here are signed by a CA that
// reaches the platform process only through that variable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestPlatform,
  sharedDatabaseUrl,
  TEST_ADMIN_TOKEN,
  type TestPlatform,
  testConfig,
  testDatabaseTargets,
  testTls,
} from '../../platform/src/testing.js';
import { answerWith, cart, option, storeSellingVia } from '../../platform/test/shipping/shipping-kit.js';
import { startTestSeller, type TestSeller } from '../../platform/test/shipping/test-seller.js';
import { type LoopbackReceiver, startReceiver } from '../../platform/test/webhooks/loopback-receiver.js';
import { type Seller, sellerWithToken, signup } from '../../platform/test/webhooks/webhook-kit.js';
import { type FeiraProcess, runFeira } from './feira-process.js';

// One database is enough: what is under test is the outbound TLS trust, which no storage touches.
const sqlite = testDatabaseTargets().find((t) => t.dialect === 'sqlite');

describe('feira start trusts NODE_EXTRA_CA_CERTS (spec "Signature (v1 only)" HTTPS receivers, spec-notes Q1 HTTPS sellers)', {
  timeout: 240_000,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'feira-extra-ca-'));
  let platform: TestPlatform;
  let receiver: LoopbackReceiver;
  let seller: TestSeller;
  let store: Seller;
  let feira: FeiraProcess;
  let base: string;

  beforeAll(async () => {
    platform = await createTestPlatform(sqlite as NonNullable<typeof sqlite>, { outboundCa: testTls.ca });
    receiver = await startReceiver({ tls: true, answer: () => ({ status: 204 }) });
    seller = await startTestSeller({ tls: true, behave: () => ({ status: 200, json: answerWith([option()]) }) });
    store = await sellerWithToken(platform);
    expect((await signup(platform, store, 'v1', receiver.url, ['order'])).statusCode).toBe(200);
    await storeSellingVia(platform, `${seller.url}/quote`, ['CD-1'], store.tenantId);

    const extraCa = join(dir, 'company-ca.pem');
    writeFileSync(extraCa, testTls.ca);
    const { url } = await sharedDatabaseUrl(platform.database);
    // Sandbox mode, so the outbound client also trusts the data folder's local CA: the case that dropped the extra CA.
    feira = runFeira(['start', '--port', '0', '--seed', 'none', '--data-dir', join(dir, '.feira'), '--log-level', 'silent'], {
      FEIRA_DATABASE: url,
      FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      FEIRA_SECRET_KEY: testConfig().secretKey,
      NODE_EXTRA_CA_CERTS: extraCa,
    });
    base = `http://127.0.0.1:${(await feira.waitFor(/Listening on http:\/\/127\.0\.0\.1:(\d+)/, 120_000))[1]}`;
  }, 180_000);

  afterAll(async () => {
    await feira?.stop('SIGKILL');
    await receiver?.close();
    await seller?.close();
    await platform?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a v1 delivery reaches an HTTPS receiver whose CA is given only through NODE_EXTRA_CA_CERTS', async () => {
    const created = await request(`${base}/admin/v1/tenants/${store.tenantId}/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { id: 'cust-ca', name: 'Ana Silva' }, items: [{ sku: 'SKU-A', quantity: 1, price: 10 }] }),
    });
    expect(created.statusCode).toBe(201);
    const [delivery] = await receiver.waitFor(1, 60_000);
    expect(delivery?.headers['x-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(String(delivery?.raw))).toMatchObject({ topic: 'order', tenant_id: store.tenantId });
  });

  it('an HTTPS seller whose CA is given only through NODE_EXTRA_CA_CERTS is quoted', async () => {
    const res = await request(`${base}/storefront/v1/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: store.tenantId, zipcode: '01310100', items: cart }),
    });
    const body = (await res.body.json()) as { available: boolean; reason?: unknown };
    expect(body, JSON.stringify(body)).toMatchObject({ available: true });
    expect(seller.requests).toHaveLength(1);
  });
});
